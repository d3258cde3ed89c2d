/*
 * The provider `osgi`: the OSGi framework's own events as static probes, declared with the
 * Java probe API like any bundle's (their module is this bundle's symbolic name):
 *
 *   bundle-installed, -resolved, -starting, -started, -stopping, -stopped, -updated,
 *   -unresolved, -uninstalled        (string symbolic_name, long bundle_id, string location)
 *   service-registered, -modified, -unregistering
 *                                    (string objectClass, long service_id, string symbolic_name)
 *
 * objectClass is the service's interfaces joined with ","; symbolic_name for a service is the
 * registering bundle's. A bundle with no symbolic name shows its location. The listeners are
 * synchronous (SynchronousBundleListener; service events always are): a probe fires on the
 * thread that installs, starts or registers, as a kernel SDT probe fires in the thread at the
 * site. An event whose probe is not enabled costs one volatile read; nothing is built for it.
 */
package org.jdtrace.provider.sdt.internal.jvm;

import static org.jdtrace.sdt.ArgType.LONG;
import static org.jdtrace.sdt.ArgType.STRING;

import org.jdtrace.sdt.StaticProbe;
import org.jdtrace.sdt.StaticProvider;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.SynchronousBundleListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

@Component(immediate = true, service = {})
public final class OsgiEventProbes implements SynchronousBundleListener, ServiceListener {

    static final StaticProvider OSGI = StaticProvider.define(OsgiEventProbes.class, "osgi");
    static final StaticProbe BUNDLE_INSTALLED = eventProbe("bundle-installed");
    static final StaticProbe BUNDLE_RESOLVED = eventProbe("bundle-resolved");
    static final StaticProbe BUNDLE_STARTING = eventProbe("bundle-starting");
    static final StaticProbe BUNDLE_STARTED = eventProbe("bundle-started");
    static final StaticProbe BUNDLE_STOPPING = eventProbe("bundle-stopping");
    static final StaticProbe BUNDLE_STOPPED = eventProbe("bundle-stopped");
    static final StaticProbe BUNDLE_UPDATED = eventProbe("bundle-updated");
    static final StaticProbe BUNDLE_UNRESOLVED = eventProbe("bundle-unresolved");
    static final StaticProbe BUNDLE_UNINSTALLED = eventProbe("bundle-uninstalled");
    static final StaticProbe SERVICE_REGISTERED = eventProbe("service-registered");
    static final StaticProbe SERVICE_MODIFIED = eventProbe("service-modified");
    static final StaticProbe SERVICE_UNREGISTERING = eventProbe("service-unregistering");

    private BundleContext context;

    /** Every event probe has (a name, an ID, a name): see the table above. */
    private static StaticProbe eventProbe(String name) {
        return OSGI.probe(name, STRING, LONG, STRING);
    }

    @Activate
    void activate(BundleContext context) {
        this.context = context;
        context.addBundleListener(this);
        context.addServiceListener(this);
    }

    @Deactivate
    void deactivate() {
        context.removeServiceListener(this);
        context.removeBundleListener(this);
    }

    private static StaticProbe probeOf(BundleEvent e) {
        return switch (e.getType()) {
            case BundleEvent.INSTALLED -> BUNDLE_INSTALLED;
            case BundleEvent.RESOLVED -> BUNDLE_RESOLVED;
            case BundleEvent.STARTING -> BUNDLE_STARTING;
            case BundleEvent.STARTED -> BUNDLE_STARTED;
            case BundleEvent.STOPPING -> BUNDLE_STOPPING;
            case BundleEvent.STOPPED -> BUNDLE_STOPPED;
            case BundleEvent.UPDATED -> BUNDLE_UPDATED;
            case BundleEvent.UNRESOLVED -> BUNDLE_UNRESOLVED;
            case BundleEvent.UNINSTALLED -> BUNDLE_UNINSTALLED;
            default -> null;
        };
    }

    private static StaticProbe probeOf(ServiceEvent e) {
        return switch (e.getType()) {
            case ServiceEvent.REGISTERED -> SERVICE_REGISTERED;
            case ServiceEvent.MODIFIED -> SERVICE_MODIFIED;
            case ServiceEvent.UNREGISTERING -> SERVICE_UNREGISTERING;
            default -> null;
        };
    }

    private static String nameOf(Bundle b) {
        if (b == null) {
            return null;
        }
        String n = b.getSymbolicName();
        return n != null ? n : b.getLocation();
    }

    @Override
    public void bundleChanged(BundleEvent event) {
        StaticProbe p = probeOf(event);
        if (p != null && p.isEnabled()) {
            Bundle b = event.getBundle();
            p.fire(nameOf(b), b.getBundleId(), b.getLocation());
        }
    }

    @Override
    public void serviceChanged(ServiceEvent event) {
        StaticProbe p = probeOf(event);
        if (p != null && p.isEnabled()) {
            ServiceReference<?> ref = event.getServiceReference();
            Object classes = ref.getProperty(Constants.OBJECTCLASS);
            String objectClass = classes instanceof String[] a ? String.join(",", a) : String.valueOf(classes);
            long id = ref.getProperty(Constants.SERVICE_ID) instanceof Long l ? l : -1;
            p.fire(objectClass, id, nameOf(ref.getBundle()));
        }
    }
}
