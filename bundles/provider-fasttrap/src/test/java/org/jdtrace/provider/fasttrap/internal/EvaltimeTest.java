package org.jdtrace.provider.fasttrap.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jdtrace.isa.amd64.internal.Amd64Isa;
import org.jdtrace.proc.ProcessControl.Evaltime;
import org.jdtrace.proc.ProcessException;
import org.jdtrace.proc.TargetProcess;
import org.jdtrace.spi.ProbeDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * dtrace -c -x evaltime on a real process (ft_ctor: ft_ctor_work(1) from a constructor, then
 * ft_ctor_work(2) from main): where it is held decides which libraries have probes and which
 * calls the probes see.
 */
class EvaltimeTest {

    private final PidProvider provider = new PidProvider(new Amd64Isa(), 250_000, null);
    private final TestRegistry registry = new TestRegistry(provider);
    private final List<TargetProcess> targets = new ArrayList<>();
    private final List<Path> files = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (TargetProcess t : targets) t.close();
        provider.deactivate();
        for (Path f : files) Files.deleteIfExists(f);
    }

    private static String bin(String name) {
        return Path.of("../../fixtures/target/bin", name).toAbsolutePath().normalize().toString();
    }

    private Path out;
    private long libcWhileHeld = -1;
    private boolean libcMappedWhileHeld;

    private TargetProcess create(Evaltime at, String... argv) throws Exception {
        out = Files.createTempFile("evaltime", ".out");
        files.add(out);
        TargetProcess t = provider.control().create(List.of(argv), out, at);
        targets.add(t);
        return t;
    }

    private long probesIn(String module) {
        return registry.probes.stream().filter(p -> p.module.equals(module)).count();
    }

    /** Runs ft_ctor held at {@code at}; ft_ctor_work's first arguments, in order. */
    private List<Long> ctorWorkArgs(Evaltime at, AtomicLong libcEntries, AtomicLong mains) throws Exception {
        TargetProcess t = create(at, bin("ft_ctor"));
        String pid = "pid" + t.pid();
        registry.retain(p -> p.module.equals("libc.so.6") && p.name.equals("entry"), c -> libcEntries.incrementAndGet());
        provider.provide(ProbeDescription.parse(pid + ":a.out:ft_ctor_work:entry"));
        provider.provide(ProbeDescription.parse(pid + ":a.out:main:entry"));
        provider.provide(ProbeDescription.parse(pid + ":libc.so.6::entry"));
        libcWhileHeld = probesIn("libc.so.6");
        libcMappedWhileHeld = Files.readString(Path.of("/proc", Long.toString(t.pid()), "maps")).contains("/libc.so.6");
        List<Long> args = Collections.synchronizedList(new ArrayList<>());
        registry.enable(registry.probe("a.out", "ft_ctor_work", "entry"), c -> args.add(c.arg(0)));
        registry.enable(registry.probe("a.out", "main", "entry"), c -> mains.incrementAndGet());
        t.go();
        assertEquals(0, t.awaitExit(60, TimeUnit.SECONDS), "wait status");
        assertEquals("2 4\n", Files.readString(out));
        return args;
    }

    @Test
    void execHoldsBeforeTheLibrariesAreMapped() throws Exception {
        AtomicLong libc = new AtomicLong(), mains = new AtomicLong();
        assertEquals(List.of(1L, 2L), ctorWorkArgs(Evaltime.EXEC, libc, mains));
        assertEquals(0, libcWhileHeld, "libc.so.6 is not mapped at exec: the description matched nothing");
        assertFalse(libcMappedWhileHeld, "the kernel's /proc/PID/maps: no libc.so.6 at exec");
        assertEquals(1, mains.get(), "a.out`main:entry");
        assertTrue(libc.get() > 0, "libc.so.6 entry probes made once the linker mapped it fired: " + libc.get());
    }

    @Test
    void preinitHoldsWithTheLibrariesMappedBeforeAnyConstructor() throws Exception {
        AtomicLong libc = new AtomicLong(), mains = new AtomicLong();
        assertEquals(List.of(1L, 2L), ctorWorkArgs(Evaltime.PREINIT, libc, mains));
        assertTrue(libcWhileHeld > 1000, "libc.so.6 entry probes at preinit: " + libcWhileHeld);
        assertTrue(libcMappedWhileHeld, "the kernel's /proc/PID/maps: libc.so.6 at preinit");
        assertEquals(1, mains.get());
        assertTrue(libc.get() > 0);
    }

    @Test
    void postinitHoldsAtTheEntryPointBeforeTheExecutablesConstructors() throws Exception {
        AtomicLong libc = new AtomicLong(), mains = new AtomicLong();
        assertEquals(List.of(1L, 2L), ctorWorkArgs(Evaltime.POSTINIT, libc, mains));
        assertTrue(libcWhileHeld > 1000);
        assertEquals(1, mains.get());
    }

    @Test
    void mainHoldsAfterEveryConstructor() throws Exception {
        AtomicLong libc = new AtomicLong(), mains = new AtomicLong();
        assertEquals(List.of(2L), ctorWorkArgs(Evaltime.MAIN, libc, mains), "the constructor's call came before main");
        assertEquals(1, mains.get(), "main:entry at the very pc the process was held at fires");
    }

    @Test
    void mainWithoutASymbolMainIsRefused() throws Exception {
        Path stripped = Files.createTempFile("ft_ctor", ".stripped");
        files.add(stripped);
        Process strip = new ProcessBuilder("strip", "-o", stripped.toString(), bin("ft_ctor")).inheritIO().start();
        assertEquals(0, strip.waitFor());
        stripped.toFile().setExecutable(true);
        ProcessException e = assertThrows(ProcessException.class, () -> create(Evaltime.MAIN, stripped.toString()));
        assertTrue(e.getMessage().contains("no symbol main"), e.getMessage());
    }
}
