package org.jdtrace.fasttrap;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The life of a followed process as fasttrap sees it. Callbacks may come from any thread; a
 * listener must not block for long (the process may be held meanwhile).
 */
@ConsumerType
public interface TargetListener {

    /** fasttrap follows {@code t} from now on; a created process has not run yet. */
    default void followed(TracedTarget t) {}

    /**
     * The dynamic linker mapped {@code added} and unmapped {@code removed} (dlopen, dlclose),
     * told while the thread that called the linker is held: probes created now fire before
     * dlopen returns. Tracepoints of removed objects are already forgotten (never written
     * again); their memory is gone or somebody else's: write nothing there.
     */
    default void objectsChanged(TracedTarget t, List<? extends TargetObject> added, List<? extends TargetObject> removed) {}

    /**
     * {@code t} exec'd or exited: its tracepoints are gone with its old image, and it is defunct
     * for good (the only two ways, see {@link TracedTarget#defunct()}). Write nothing to it.
     */
    default void defunct(TracedTarget t) {}

    /**
     * fasttrap is about to let {@code t} go (release, kill, the bundle stopping, dtrace
     * ending): undo every write made to it (semaphores) and remove every tracepoint now, while
     * the process is still there.
     */
    default void releasing(TracedTarget t) {}
}
