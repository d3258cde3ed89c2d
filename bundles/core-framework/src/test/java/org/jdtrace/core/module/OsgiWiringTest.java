package org.jdtrace.core.module;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.felix.framework.Felix;
import org.jdtrace.core.testsession.TestProvider;
import org.jdtrace.spi.Provider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.launch.Framework;

/**
 * The core bundle in a real Felix with SCR: its DS components come up, the built-in providers
 * are attached through the dynamic Provider reference, a provider registered as a service is
 * attached and retired when it goes, and bundles play modules (a bundle that resolves is offered
 * to providers; when it is uninstalled, its probes retire).
 *
 * The test's provider is registered by the system bundle with the org.jdtrace.spi classes of the
 * test class path, which the framework exports (system.packages.extra) and the core bundle
 * imports (bnd makes its exports substitutable).
 */
class OsgiWiringTest {

    private Framework felix;
    private Path storage;

    private static String location(Class<?> c) throws Exception {
        return c.getProtectionDomain().getCodeSource().getLocation().toURI().toString();
    }

    @BeforeEach
    void start() throws Exception {
        storage = Files.createTempDirectory("jdtrace-felix");
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        config.put("felix.bootdelegation.implicit", "false");
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA,
                "org.jdtrace.spi;version=1.12.0,org.slf4j;version=2.0.17");
        felix = new Felix(config);
        felix.start();
        BundleContext ctx = felix.getBundleContext();
        Bundle[] bundles = {
            ctx.installBundle(location(Class.forName("org.osgi.util.function.Function"))),
            ctx.installBundle(location(Class.forName("org.osgi.util.promise.Promise"))),
            ctx.installBundle(location(Class.forName("org.osgi.service.component.ComponentContext"))),
            ctx.installBundle(location(Class.forName("org.apache.felix.scr.impl.Activator"))),
            ctx.installBundle("reference:" + location(org.jdtrace.core.provider.DTraceFramework.class)),
        };
        for (Bundle b : bundles) {
            if (b.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                b.start();
            }
        }
    }

    @AfterEach
    void stop() throws Exception {
        if (felix != null) {
            felix.stop();
            felix.waitForStop(10_000);
        }
        try (var walk = Files.walk(storage)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private static byte[] bundleJar(String symbolicName) throws Exception {
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        a.putValue(Constants.BUNDLE_SYMBOLICNAME, symbolicName);
        a.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new JarOutputStream(bytes, mf).close();
        return bytes.toByteArray();
    }

    @Test
    void providersAreTrackedAndBundlesAreModules() throws Exception {
        BundleContext ctx = felix.getBundleContext();
        TestProvider t = new TestProvider("test", "m:f:foo");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("provider.name", "test");
        ServiceRegistration<Provider> reg = ctx.registerService(Provider.class, t, props);
        await(() -> t.registry != null, "the framework to attach the provider");

        assertNotNull(t.registry.lookup("test", "m", "f", "foo"));
        await(() -> t.registry.lookup("dtrace", "", "", "BEGIN") != null, "the dtrace provider");
        assertNotNull(t.registry.lookup("dtrace", "", "", "ERROR"));
        await(() -> t.registry.lookup("profile", "", "", "tick-1") != null, "the profile provider");
        assertTrue(t.calls.contains("module org.jdtrace.core"), "loaded bundles are offered as modules");

        Bundle mod = ctx.installBundle("test:module", new ByteArrayInputStream(bundleJar("org.example.module")));
        mod.start();
        await(() -> t.calls.contains("module org.example.module"), "the new bundle to be offered");
        assertNotNull(t.registry.lookup("test", "org.example.module", "", "load"));

        mod.uninstall();
        await(() -> t.calls.contains("destroy load"), "the module's probes to retire");
        assertNull(t.registry.lookup("test", "org.example.module", "", "load"));
        assertNotNull(t.registry.lookup("test", "m", "f", "foo"), "other probes stay");

        reg.unregister();
        await(() -> t.calls.contains("detach"), "the provider to be detached");
        assertTrue(t.calls.contains("destroy foo"));
        assertEquals(1, t.calls.stream().filter("attach"::equals).count());
    }
}
