package org.jdtrace.provider.sdt.internal.usdt;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jdtrace.fasttrap.ArgumentReader;
import org.jdtrace.fasttrap.Site;
import org.jdtrace.fasttrap.TargetObject;
import org.jdtrace.isa.SdtArgument;

/**
 * A USDT probe's provider argument (fasttrap_probe_t of a USDT probe): its process, the object
 * its notes come from, every site (one note each: the same provider:name may sit at several
 * places of one function), the arguments its notes describe (null when a spec could not be
 * read: the probe fires without arguments), the argument types dtrace -h declared (null when
 * the object does not say: typed by size) and, while enabled, its holds on the tracepoints.
 * {@code gone}: the object was unmapped or the process is defunct; nothing may be written to
 * it any more (semaphores are dropped, not decremented).
 */
final class UsdtProbe {

    /** One note: the process address of the site and of its semaphore (0: none). */
    record SiteSpec(long pc, long semaphore) {}

    final UsdtProcess process;
    final TargetObject object;
    final List<SiteSpec> sites;
    final SdtArgument[] args;
    final List<String> declaredTypes;
    final ArgumentReader reader;
    final List<Site> held = new CopyOnWriteArrayList<>();
    /** While enabled: the semaphores this provider counted itself (those the kernel does not count for it). */
    volatile List<Long> counted = List.of();
    volatile boolean gone;

    UsdtProbe(UsdtProcess process, TargetObject object, List<SiteSpec> sites, SdtArgument[] args,
            List<String> declaredTypes, ArgumentReader reader) {
        this.process = process;
        this.object = object;
        this.sites = List.copyOf(sites);
        this.args = args;
        this.declaredTypes = declaredTypes == null ? null : List.copyOf(declaredTypes);
        this.reader = reader;
    }

    /** The distinct semaphores of the probe's sites. */
    List<Long> semaphores() {
        return sites.stream().map(SiteSpec::semaphore).filter(a -> a != 0).distinct().toList();
    }
}
