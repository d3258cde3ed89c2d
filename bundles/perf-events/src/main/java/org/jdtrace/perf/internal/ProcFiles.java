package org.jdtrace.perf.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a /proc, /sys or tracefs file whole. Files.readString and readAllBytes trust the size the
 * file reports and can return only its first bytes here (perf_event_max_sample_rate read as "1");
 * this reads until end of file.
 */
final class ProcFiles {

    private ProcFiles() {}

    static String read(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            StringBuilder sb = new StringBuilder();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) sb.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            return sb.toString();
        }
    }
}
