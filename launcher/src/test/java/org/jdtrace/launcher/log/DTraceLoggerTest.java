package org.jdtrace.launcher.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Bundles' log lines come out as dtrace(1M)'s diagnostics, through the class path's provider. */
class DTraceLoggerTest {

    private static String stderrOf(Runnable r) {
        PrintStream saved = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(saved);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void warningsAndErrorsReadLikeDtracesOwnAndInfoIsQuiet() {
        Logger log = LoggerFactory.getLogger("org.jdtrace.provider.fasttrap.internal.PidProvider");
        assertEquals(DTraceLogger.class, log.getClass());
        String err = stderrOf(() -> {
            log.info("hidden {}", 1);
            log.warn("pid{}: function {} skipped", 42, "f");
            log.error("cannot map scratch", new IllegalStateException("mmap failed"));
        });
        assertEquals("dtrace: warning: pid42: function f skipped\n"
                + "dtrace: cannot map scratch: mmap failed\n", err);
    }
}
