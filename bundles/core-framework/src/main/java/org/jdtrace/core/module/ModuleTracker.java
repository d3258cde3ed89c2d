/*
 * Bundles play the kernel's modules. A BundleTracker follows every bundle that is RESOLVED,
 * STARTING, ACTIVE or STOPPING: when one enters that set (it resolved) it is offered to every
 * provider (dtrace_module_loaded -> dtps_provide_module); when it leaves (unresolved, refreshed
 * or uninstalled) the probes whose module is its symbolic name retire through the framework's
 * single retire path (dtrace_module_unloaded), and the enablings that matched them wait for the
 * module to come back.
 */
package org.jdtrace.core.module;

import org.jdtrace.core.provider.DTraceFramework;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.util.tracker.BundleTracker;
import org.osgi.util.tracker.BundleTrackerCustomizer;

@Component(immediate = true, service = {})
public final class ModuleTracker implements BundleTrackerCustomizer<BundleModule> {

    private static final int LOADED = Bundle.RESOLVED | Bundle.STARTING | Bundle.ACTIVE | Bundle.STOPPING;

    @Reference
    private DTraceFramework framework;
    private BundleTracker<BundleModule> tracker;

    @Activate
    void activate(BundleContext context) {
        tracker = new BundleTracker<>(context, LOADED, this);
        tracker.open();
    }

    @Deactivate
    void deactivate() {
        if (tracker != null) {
            tracker.close();
        }
    }

    @Override
    public BundleModule addingBundle(Bundle bundle, BundleEvent event) {
        BundleModule m = new BundleModule(bundle);
        framework.moduleLoaded(m);
        return m;
    }

    @Override
    public void modifiedBundle(Bundle bundle, BundleEvent event, BundleModule module) {
        // still loaded
    }

    @Override
    public void removedBundle(Bundle bundle, BundleEvent event, BundleModule module) {
        framework.moduleUnloaded(module);
    }
}
