/*
 * SystemPackages: what the launcher's system bundle exports (org.osgi.framework.system.packages).
 *
 * Felix's default is the OSGi framework's own packages plus every package every module of the
 * boot layer exports (its "jre-jpms" list: about a thousand on JDK 25), which it builds as one
 * header and parses into a capability each, at every start, before a bundle is installed. A
 * dtrace run needs only the JDK packages its bundles import. So the build writes
 * dist/system.packages ({@link #main}), one export clause a line: the framework's packages (Felix's
 * own "osgi-exports" definition, from its default.properties, with their versions and uses) and
 * the JDK packages (those a boot module exports) that the distribution's bundles (bundles/ and
 * shell/) import. At each start the launcher exports those, and the JDK packages the application
 * bundles of --bundle import. A bundle resolves against this list exactly as against Felix's: the
 * same packages, the same (absent) versions. A JDK package no bundle of the run imports is not
 * exported: a bundle installed later from Gogo that imports another one does not resolve.
 *
 * Runs once, on the launcher's thread, before the framework is constructed. Without the file
 * (a distribution built before it), or when a jar cannot be read, it gives null and the launcher
 * keeps Felix's default list: slower, never wrong.
 */
package org.jdtrace.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.apache.felix.framework.Felix;

final class SystemPackages {

    /** The file, beside the launcher jar, that lists the distribution's JDK packages. */
    static final String FILE = "system.packages";

    private SystemPackages() {}

    /**
     * Build time: {@code SystemPackages DIST} writes DIST/system.packages: Felix's framework
     * packages, then the JDK packages the jars of DIST/bundles and DIST/shell import, a clause a line.
     */
    public static void main(String[] args) throws IOException, Main.LaunchException {
        Path dist = Path.of(args[0]);
        List<Path> jars = new ArrayList<>();
        for (String dir : List.of("bundles", "shell")) {
            if (Files.isDirectory(dist.resolve(dir))) {
                jars.addAll(Main.jars(dist.resolve(dir)));
            }
        }
        List<String> lines = new ArrayList<>(clauses(frameworkPackages()));
        lines.addAll(jdkImports(jars));
        Files.write(dist.resolve(FILE), lines);
    }

    /**
     * The value of org.osgi.framework.system.packages for a run of the distribution in {@code dist}
     * with the application bundles {@code extra}, or null (Felix's default).
     */
    static String of(Path dist, List<Path> extra) {
        Path list = dist.resolve(FILE);
        if (!Files.isRegularFile(list)) {
            return null;
        }
        try {
            List<String> exports = new ArrayList<>(Files.readAllLines(list));
            if (!extra.isEmpty()) {
                Set<String> more = jdkImports(extra);
                more.removeAll(exports);
                exports.addAll(more);
            }
            exports.removeIf(String::isBlank);
            return exports.isEmpty() ? null : String.join(",", exports);
        } catch (IOException e) {
            return null;
        }
    }

    /** The packages the jars import that a boot-layer module exports to everyone. */
    static Set<String> jdkImports(List<Path> jars) throws IOException {
        Set<String> imported = new TreeSet<>();
        for (Path jar : jars) {
            try (JarFile j = new JarFile(jar.toFile(), false)) {
                Manifest m = j.getManifest();
                if (m != null) {
                    imported.addAll(packages(m.getMainAttributes().getValue("Import-Package")));
                }
            }
        }
        imported.retainAll(bootExports());
        return imported;
    }

    /** Felix's osgi-exports: the framework's own packages with their versions and uses. */
    static String frameworkPackages() throws IOException {
        try (InputStream in = Felix.class.getResourceAsStream("/default.properties")) {
            if (in == null) {
                throw new IOException("no default.properties beside " + Felix.class);
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("osgi-exports");
            if (v == null || v.isBlank()) {
                throw new IOException("no osgi-exports in Felix's default.properties");
            }
            return v;
        }
    }

    /** A header's clauses (split at commas outside quotes), each stripped; empty ones dropped. */
    static List<String> clauses(String header) {
        List<String> out = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i <= header.length(); i++) {
            char c = i < header.length() ? header.charAt(i) : ',';
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                String clause = header.substring(start, i).strip();
                if (!clause.isEmpty()) {
                    out.add(clause);
                }
                start = i + 1;
            }
        }
        return out;
    }

    /** The packages a boot-layer module exports to everyone. */
    static Set<String> bootExports() {
        Set<String> out = new TreeSet<>();
        for (Module m : ModuleLayer.boot().modules()) {
            for (ModuleDescriptor.Exports e : m.getDescriptor().exports()) {
                if (!e.isQualified()) {
                    out.add(e.source());
                }
            }
        }
        return out;
    }

    /**
     * The package names of an Import-Package or Export-Package header: its clauses are split at
     * commas outside quotes, a clause's names are its ';'-separated parts that are no attribute
     * or directive (OSGi lets one clause name several packages).
     */
    static List<String> packages(String header) {
        List<String> out = new ArrayList<>();
        if (header == null) {
            return out;
        }
        for (String clause : clauses(header)) {
            for (String part : clause.split(";")) {
                String name = part.strip();
                if (!name.isEmpty() && !name.contains("=") && !name.contains("\"")) {
                    out.add(name);
                }
            }
        }
        return out;
    }
}
