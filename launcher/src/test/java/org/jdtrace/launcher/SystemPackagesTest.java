package org.jdtrace.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.felix.framework.Felix;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;

/**
 * The system bundle's short export list, against the real Felix: a bundle that imports JDK and
 * framework packages resolves with it, and a JDK package no bundle imports is left out.
 */
class SystemPackagesTest {

    private static final String IMPORTS = "java.util.concurrent,javax.xml.parsers;version=\"[0,2)\","
            + "org.example.own;version=\"[1.0,2)\",org.osgi.framework;version=\"[1.8,2)\","
            + "org.osgi.util.tracker;version=\"[1.5,2)\",java.lang.invoke;java.lang.ref";

    /** An empty bundle NAME.jar in DIR with these headers (null: none); also AotTrainingTest's. */
    static Path bundle(Path dir, String name, String imports, String exports) throws Exception {
        Manifest m = new Manifest();
        Attributes a = m.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        a.putValue(Constants.BUNDLE_SYMBOLICNAME, name);
        if (imports != null) {
            a.putValue(Constants.IMPORT_PACKAGE, imports);
        }
        if (exports != null) {
            a.putValue(Constants.EXPORT_PACKAGE, exports);
        }
        Path jar = dir.resolve(name + ".jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, m)) {
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void headersAreSplitAtCommasOutsideQuotesAndEveryNameOfAClauseCounts() {
        assertEquals(List.of("a;uses:=\"x,y\"", "b"), SystemPackages.clauses(" a;uses:=\"x,y\" ,, b,"));
        assertEquals(List.of("a.b", "c", "d", "e"),
                SystemPackages.packages("a.b;version=\"[1,2)\";uses:=\"x,y\",c;d;resolution:=optional, e"));
        assertEquals(List.of(), SystemPackages.packages(null));
    }

    @Test
    void theListIsTheFrameworksPackagesAndTheJdkPackagesTheBundlesImport(@TempDir Path dir) throws Exception {
        // a distribution whose bundles/ holds "user"; "own" and "sql" come with --bundle / later
        Path dist = Files.createDirectories(dir.resolve("dist"));
        Path user = bundle(Files.createDirectories(dist.resolve("bundles")), "user", IMPORTS, null);
        Path own = bundle(dir, "own", "javax.naming", "org.example.own;version=\"1.0\";uses:=\"java.util,java.io\"");
        assertNull(SystemPackages.of(dist, List.of()), "no system.packages: Felix's default");
        SystemPackages.main(new String[] {dist.toString()});
        List<String> lines = Files.readAllLines(dist.resolve(SystemPackages.FILE));
        assertTrue(lines.get(0).startsWith("org.osgi.framework;version="), "Felix's framework packages first: " + lines);
        assertEquals(List.of("java.lang.invoke", "java.lang.ref", "java.util.concurrent", "javax.xml.parsers"),
                lines.subList(lines.size() - 4, lines.size()), "then the JDK packages the bundles import");
        String list = SystemPackages.of(dist, List.of(own));
        assertNotNull(list);
        List<String> names = SystemPackages.packages(list);
        for (String p : List.of("java.util.concurrent", "javax.xml.parsers", "java.lang.invoke", "java.lang.ref",
                "javax.naming", "org.osgi.framework", "org.osgi.util.tracker", "org.osgi.framework.wiring")) {
            assertTrue(names.contains(p), p + " in " + list);
        }
        assertFalse(names.contains("org.example.own"), "not a JDK package");
        assertFalse(names.contains("java.sql"), "a JDK package no bundle imports");
        assertTrue(names.size() < 40, "Felix's default lists every boot module's packages: " + names.size());
        assertNull(SystemPackages.of(dist, List.of(dir.resolve("missing.jar"))), "an unreadable jar: Felix's default");

        // the real framework with that list: both bundles resolve and start
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, dir.resolve("storage").toString());
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES, list);
        Felix felix = new Felix(config);
        felix.init();
        try {
            Bundle u = felix.getBundleContext().installBundle("reference:" + user.toUri());
            Bundle o = felix.getBundleContext().installBundle("reference:" + own.toUri());
            felix.start();
            o.start();
            u.start();
            assertEquals(Bundle.ACTIVE, u.getState(), "the importing bundle resolved and started");
            // the list is in effect: a bundle importing a JDK package it leaves out does not resolve
            Bundle sql = felix.getBundleContext().installBundle("reference:" + bundle(dir, "sql", "java.sql", null).toUri());
            assertThrows(BundleException.class, sql::start);
        } finally {
            felix.stop();
            felix.waitForStop(10_000);
        }
    }
}
