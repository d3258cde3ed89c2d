/*
 * StoredJars: the build stores the distribution's bundle jars uncompressed (ZIP method STORED).
 *
 * Felix reads every bundle class and DS descriptor a run uses from its bundle's jar at every run
 * (even a class the AOT cache holds: for a bundle's class loader the JVM takes the archived class
 * only after checking the class file's bytes against it), and a deflated entry is inflated each
 * time. A stored entry is read as it lies in the file: `bin/dtrace -q -n 'BEGIN { exit(0); }'`
 * costs 22-28 ms less CPU (~6%). bundles/ grows from 2.4 MB to 5.1 MB, shell/ from 0.5 to 1 MB;
 * a run reads only the entries it loads either way.
 *
 * {@link #main} rewrites each jar of the directories it is given, in place, when it holds a
 * deflated entry: the same entries in the same order (the manifest stays first), each with its
 * name, times, extra field and comment, its bytes unchanged (so a signature over them would still
 * verify), only its method STORED; the jar's modification time is kept, so the dependency
 * plugin's copy-if-newer still sees a rebuilt bundle as newer. A jar already stored is left
 * alone. The new jar is written beside the old one and moved over it, so a failed run leaves the
 * old jar (compressed, still correct). Build time only (launcher/pom.xml, before the AOT training
 * run); nothing at run time depends on a jar being stored.
 */
package org.jdtrace.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

final class StoredJars {

    private StoredJars() {}

    /** Build time: {@code StoredJars DIR...} stores every *.jar of each existing DIR. */
    public static void main(String[] args) throws IOException, Main.LaunchException {
        for (String dir : args) {
            Path d = Path.of(dir);
            if (Files.isDirectory(d)) {
                for (Path jar : Main.jars(d)) {
                    store(jar);
                }
            }
        }
    }

    /** Rewrites {@code jar} with every entry STORED; false (and the file untouched) when it was already. */
    static boolean store(Path jar) throws IOException {
        List<ZipEntry> entries = new ArrayList<>();
        Path tmp = jar.resolveSibling(jar.getFileName() + ".stored.tmp");
        try (ZipFile in = new ZipFile(jar.toFile())) {
            boolean deflated = false;
            for (Enumeration<? extends ZipEntry> e = in.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                entries.add(entry);
                deflated |= entry.getMethod() != ZipEntry.STORED;
            }
            if (!deflated) {
                return false;
            }
            try (OutputStream file = Files.newOutputStream(tmp);
                    ZipOutputStream out = new ZipOutputStream(file)) {
                out.setMethod(ZipOutputStream.STORED);
                String comment = in.getComment();
                if (comment != null) {
                    out.setComment(comment);
                }
                for (ZipEntry entry : entries) {
                    byte[] data;
                    try (InputStream is = in.getInputStream(entry)) {
                        data = is.readAllBytes();
                    }
                    CRC32 crc = new CRC32();
                    crc.update(data);
                    ZipEntry stored = new ZipEntry(entry);
                    stored.setMethod(ZipEntry.STORED);
                    stored.setSize(data.length);
                    stored.setCompressedSize(data.length);
                    stored.setCrc(crc.getValue());
                    out.putNextEntry(stored);
                    out.write(data);
                    out.closeEntry();
                }
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        FileTime modified = Files.getLastModifiedTime(jar);
        Files.setLastModifiedTime(tmp, modified);
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }
}
