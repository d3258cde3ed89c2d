package org.jdtrace.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.felix.framework.Felix;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

/**
 * The build's repacking of bundle jars: every entry STORED, the same entries in the same order
 * with the same bytes and times, the jar's time kept, and the real Felix installs it and reads
 * its manifest and resources.
 */
class StoredJarsTest {

    private static final byte[] TEXT = "a resource that deflates well; ".repeat(100).getBytes(StandardCharsets.UTF_8);

    private static Path deflatedBundle(Path dir) throws Exception {
        Manifest m = new Manifest();
        Attributes a = m.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        a.putValue(Constants.BUNDLE_SYMBOLICNAME, "stored.test");
        a.putValue(Constants.BUNDLE_VERSION, "1.2.3");
        Path jar = dir.resolve("stored.test.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, m)) {
            JarEntry d = new JarEntry("org/example/");
            d.setTime(1_000_000_000_000L);
            j.putNextEntry(d);
            j.closeEntry();
            JarEntry t = new JarEntry("org/example/text.txt");
            t.setTime(1_500_000_000_000L);
            t.setComment("kept");
            j.putNextEntry(t);
            j.write(TEXT);
            j.closeEntry();
            j.putNextEntry(new JarEntry("OSGI-INF/empty.xml"));
            j.closeEntry();
        }
        Files.setLastModifiedTime(jar, FileTime.fromMillis(1_600_000_000_000L));
        return jar;
    }

    private record Read(String name, int method, long time, String comment, byte[] data) {}

    private static List<Read> read(Path jar) throws Exception {
        List<Read> out = new ArrayList<>();
        try (ZipFile z = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(z.entries())) {
                try (InputStream in = z.getInputStream(e)) {
                    out.add(new Read(e.getName(), e.getMethod(), e.getTime(), e.getComment(), in.readAllBytes()));
                }
            }
        }
        return out;
    }

    @Test
    void everyEntryIsStoredWithItsBytesNameOrderAndTimes(@TempDir Path dir) throws Exception {
        Path jar = deflatedBundle(dir);
        List<Read> before = read(jar);
        assertTrue(before.stream().anyMatch(r -> r.method() == ZipEntry.DEFLATED), "JarOutputStream deflates");
        long deflatedSize = Files.size(jar);

        StoredJars.main(new String[] {dir.toString(), dir.resolve("absent").toString()});
        List<Read> after = read(jar);
        assertEquals(before.size(), after.size());
        for (int i = 0; i < before.size(); i++) {
            Read b = before.get(i);
            Read s = after.get(i);
            assertEquals(b.name(), s.name(), "entry " + i);
            assertEquals(ZipEntry.STORED, s.method(), b.name());
            assertEquals(b.time(), s.time(), b.name());
            assertEquals(b.comment(), s.comment(), b.name());
            assertArrayEquals(b.data(), s.data(), b.name());
        }
        assertEquals(JarFile.MANIFEST_NAME, after.get(0).name(), "the manifest first, as before");
        assertTrue(Files.size(jar) > deflatedSize + TEXT.length / 2, "the text is stored whole");
        assertEquals(FileTime.fromMillis(1_600_000_000_000L), Files.getLastModifiedTime(jar), "the jar's time kept");
        try (JarFile j = new JarFile(jar.toFile())) {
            assertEquals("stored.test", j.getManifest().getMainAttributes().getValue(Constants.BUNDLE_SYMBOLICNAME));
        }
        assertFalse(StoredJars.store(jar), "a stored jar is left alone");
        try (var s = Files.list(dir)) {
            assertEquals(List.of(jar), s.toList(), "no temporary file left");
        }

        // the real framework installs it in place, as the launcher does, and reads its resources
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, dir.resolve("storage").toString());
        Felix felix = new Felix(config);
        felix.init();
        try {
            Bundle b = felix.getBundleContext().installBundle("reference:" + jar.toUri());
            felix.start();
            b.start();
            assertEquals(Bundle.ACTIVE, b.getState());
            assertEquals("1.2.3", b.getVersion().toString());
            try (InputStream in = b.getEntry("org/example/text.txt").openStream()) {
                assertArrayEquals(TEXT, in.readAllBytes());
            }
        } finally {
            felix.stop();
            felix.waitForStop(10_000);
        }
    }
}
