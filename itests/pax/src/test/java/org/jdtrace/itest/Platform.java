package org.jdtrace.itest;

import static org.ops4j.pax.exam.CoreOptions.bootClasspathLibrary;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.CoreOptions.vmOption;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.ops4j.pax.exam.Option;

/**
 * The platform under test: every bundle of the distribution bin/dtrace runs
 * (launcher/target/dist/bundles and shell), in a forked Felix, with SLF4J on the framework's
 * class path and exported through the system bundle, as the launcher does.
 */
final class Platform {

    static final String TEST_PROVIDER = System.getProperty("jdtrace.itest.provider");
    static final String TEST_APP = System.getProperty("jdtrace.itest.app");

    private Platform() {}

    static Option[] options() {
        List<Option> o = new ArrayList<>();
        o.add(frameworkProperty("felix.bootdelegation.implicit").value("false"));
        o.add(frameworkProperty("gosh.args").value("--nointeractive"));
        String dist = System.getProperty("jdtrace.dist");
        File[] boot = new File(System.getProperty("jdtrace.itest.boot")).listFiles((d, n) -> n.endsWith(".jar"));
        for (File jar : boot) {
            o.add(bootClasspathLibrary(jar.toURI().toString()));
        }
        // As the launcher does; org.slf4j also at 1.7 for Pax Exam's own bundles, which import
        // [1.4,2) (the SLF4J 2 API serves them).
        o.add(frameworkProperty("org.osgi.framework.system.packages.extra").value(
                "org.slf4j;version=1.7.36,org.slf4j;version=2.0.17,org.slf4j.event;version=2.0.17,"
                        + "org.slf4j.helpers;version=2.0.17,org.slf4j.spi;version=2.0.17"));
        List<File> dirs = List.of(new File(dist, "bundles"), new File(dist, "shell"));
        for (File dir : dirs) {
            File[] jars = dir.listFiles((d, n) -> n.endsWith(".jar"));
            if (jars == null) {
                throw new IllegalStateException(dir + " is missing: build the launcher first");
            }
            Arrays.sort(jars);
            for (File jar : jars) {
                o.add(bundle(jar.toURI().toString()));
            }
        }
        o.add(junitBundles());
        o.add(systemProperty("jdtrace.itest.provider").value(TEST_PROVIDER));
        o.add(systemProperty("jdtrace.itest.app").value(TEST_APP));
        o.add(vmOption("--enable-native-access=ALL-UNNAMED"));
        o.add(vmOption("--sun-misc-unsafe-memory-access=allow"));
        return o.toArray(Option[]::new);
    }
}
