package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.isa.Isa;
import org.jdtrace.provider.fasttrap.internal.proc.TracedProcess;
import org.jdtrace.provider.fasttrap.internal.sym.Function;
import org.jdtrace.provider.fasttrap.internal.sym.FunctionTable;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.provider.fasttrap.internal.sym.ProcessModules;
import org.jdtrace.spi.ProbeDescription;

/*
 * What the pid provider shares about one traced process (fasttrap_proc_t): the TracedProcess
 * (one ptrace attachment, one tracepoint table), its modules and functions, and a count of
 * probes per provider name (pid123, and later USDT providers of the same process). Retiring
 * one provider name drops only its count; the process and the tracepoints other providers
 * hold stay. Only exit and exec make the state defunct (illumos 6573659: a provider going away
 * must not kill its siblings' probes).
 *
 * It also remembers every description provide() accepted for the process, those that matched
 * nothing included (dtrace -Z): when the dynamic linker maps a new object (RtldEvents), rescan()
 * tells which objects came and went, and the provider plans those descriptions again for the
 * new objects only.
 */
final class ProcessState {

    final TracedProcess process;
    /** True when the provider grabbed it itself (pid123 named in a description, no -p). */
    final boolean ownedByProvider;
    final PidContext context;
    private final Map<String, Integer> probesPerProvider = new ConcurrentHashMap<>();
    private volatile List<MappedObject> modules;
    private final Map<MappedObject, List<Function>> functions = new ConcurrentHashMap<>();
    private volatile String execname;
    private volatile long ppid = -1;
    volatile boolean defunct;
    /** The descriptions provide() accepted for this process, in the order given. */
    final Set<ProbeDescription> descriptions = java.util.Collections.synchronizedSet(new java.util.LinkedHashSet<>());

    /** What a dynamic linker event changed: objects mapped since, objects gone since. */
    record ModuleChange(List<MappedObject> added, List<MappedObject> removed) {}

    ProcessState(TracedProcess process, boolean ownedByProvider, Isa isa) {
        this.process = process;
        this.ownedByProvider = ownedByProvider;
        this.context = new PidContext(this, isa.abi());
    }

    int pid() {
        return process.pid();
    }

    synchronized List<MappedObject> modules() throws IOException {
        if (modules == null) modules = ProcessModules.read(pid());
        return modules;
    }

    /** Re-reads /proc/PID/maps (a library was loaded since). */
    synchronized void refreshModules() {
        List<MappedObject> old = modules;
        modules = null;
        functions.clear();
        if (old != null) ProcessModules.close(old);
    }

    /**
     * Reads /proc/PID/maps again after a dynamic linker event: an object still mapped where it
     * was keeps its MappedObject (and function table); the others are added or removed (their
     * ELF files closed). Nothing to compare with when the modules were never read.
     */
    synchronized ModuleChange rescan() throws IOException {
        List<MappedObject> old = modules;
        if (old == null) return new ModuleChange(List.of(), List.of());
        List<MappedObject> now = ProcessModules.read(pid());
        List<MappedObject> next = new ArrayList<>(), added = new ArrayList<>(), removed = new ArrayList<>(old);
        for (MappedObject n : now) {
            MappedObject same = old.stream().filter(o -> o.path().equals(n.path()) && o.start() == n.start()
                    && o.bias() == n.bias()).findFirst().orElse(null);
            if (same != null) {
                n.elf().close();
                removed.remove(same);
                next.add(same);
            } else {
                added.add(n);
                next.add(n);
            }
        }
        modules = next;
        for (MappedObject o : removed) functions.remove(o);
        ProcessModules.close(removed);
        return new ModuleChange(added, removed);
    }

    List<Function> functions(MappedObject obj) throws org.jdtrace.elf.ElfException {
        List<Function> f = functions.get(obj);
        if (f == null) {
            f = FunctionTable.of(obj);
            functions.put(obj, f);
        }
        return f;
    }

    void countProbe(String provider, int delta) {
        probesPerProvider.merge(provider, delta, (a, b) -> a + b <= 0 ? null : a + b);
    }

    boolean hasProbes() {
        return !probesPerProvider.isEmpty();
    }

    String execname() {
        String e = execname;
        if (e == null) {
            try {
                e = Files.readString(Path.of("/proc", Integer.toString(pid()), "comm")).strip();
            } catch (IOException ex) {
                e = "";
            }
            execname = e;
        }
        return e;
    }

    void execed() {
        execname = null;
        defunct = true;
    }

    long ppid() {
        if (ppid < 0) {
            try {
                String stat = Files.readString(Path.of("/proc", Integer.toString(pid()), "stat"));
                ppid = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
            } catch (IOException | RuntimeException ex) {
                return 0;
            }
        }
        return ppid;
    }

    /** module`function+0xoff for a pc, or null. */
    String symbolize(long pc) {
        try {
            for (MappedObject o : modules()) {
                if (!o.contains(pc)) continue;
                // named by the object's file name, as usym()/ustack() print it (not "a.out")
                String module = o.executable() && o.path() != null && o.path().getFileName() != null
                        ? o.path().getFileName().toString() : o.module();
                for (Function f : functions(o)) {
                    if (pc >= f.address() && pc < f.address() + Math.max(1, f.size())) {
                        long off = pc - f.address();
                        return module + "`" + f.name() + (off == 0 ? "" : "+0x" + Long.toHexString(off));
                    }
                }
                return module + "`0x" + Long.toHexString(pc);
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    void close() {
        List<MappedObject> m = modules;
        modules = null;
        if (m != null) ProcessModules.close(m);
    }
}
