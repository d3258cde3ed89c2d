package org.jdtrace.spi;

/**
 * A source of profile-N firings on every CPU and tick-N firings on one, in whatever runs there
 * (the kernel's sampling clock; illumos' cyclics), offered as a service by the bundle that owns the kernel's
 * events. The profile provider fires profile-N through it while one is present, and through JVM
 * timers otherwise. The firings' context gives pid, tid, execname, cpu, arg0 (kernel pc, 0 in
 * user mode), arg1 (user pc, 0 in the kernel), ustack(), stack() and uregs[].
 */
@org.osgi.annotation.versioning.ProviderType
public interface CpuSampler {

    /**
     * Starts firing {@code probe} on every CPU every {@code intervalNanos} (clamped, with one
     * warning, to what the kernel allows). Closing the handle stops it. Throws
     * {@link ProviderException} with the kernel's reason when it refuses.
     */
    AutoCloseable sample(Probe probe, long intervalNanos);

    /**
     * Starts firing {@code probe} every {@code intervalNanos} on one CPU, in whatever runs there
     * when the clock fires, the idle task included (tick-N: illumos' cyclic bound to one CPU;
     * dtrace-utils' one cpu-clock event on a CPU picked at random). Closing the handle stops it.
     * Null when this sampler cannot (the caller then keeps its own timer); throws
     * {@link ProviderException} with the kernel's reason when it refuses.
     *
     * @since 1.7
     */
    default AutoCloseable tick(Probe probe, long intervalNanos) {
        return null;
    }

    /**
     * {@code probe}'s {@link Probe#pidFilter()} changed while it is sampled (Provider.filterChanged):
     * a sampler that drops other processes' samples in the kernel follows it.
     *
     * @since 1.4
     */
    default void filterChanged(Probe probe) {}

    /**
     * A provider option a consumer set (Provider.option), passed on by the profile provider:
     * {@code ustackbytes}, the bytes of user stack each later sample copies for ustack()'s
     * unwinding (0: none, the frame-pointer chain only). A sampler ignores what it does not know.
     *
     * @since 1.9
     */
    default void option(String name, long value) {}

    /** Fires now every sample taken before the call and not yet delivered (Provider.sync). */
    void sync();
}
