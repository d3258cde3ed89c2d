/*
 * Where dtrace -c holds its process for the probes to be evaluated: dtrace(1M)'s -x evaltime
 * (libdtrace's dt_opt_evaltime; libproc's rd_event RD_PREINIT/RD_POSTINIT and main breakpoint in
 * dt_proc_create), as TracedProcess.StopPoints. TracedProcess asks a point for its address once the
 * process is stopped right after exec, when only the executable and ld.so are mapped:
 *  - EXEC: nowhere further; probes in libraries do not exist yet (-Z keeps a description that
 *    matches nothing; RtldEvents makes its probes when the linker has mapped the library).
 *  - PREINIT: glibc's _dl_debug_state (the linker's r_brk, in ld.so's .dynsym) at its first
 *    call with r_debug's r_state RT_CONSISTENT: every library mapped, none initialised. A static
 *    executable (no linker) has nothing to map or initialise before its own start-up: held at exec.
 *  - POSTINIT: the entry point (AT_ENTRY), as a -c process was always held: the libraries'
 *    initialisers have run (ld.so's _dl_init); on Linux the executable's own constructors run
 *    after it, from __libc_start_main, where Solaris's ld.so.1 ran them before.
 *  - MAIN: the first instruction of the executable's `main` (its .symtab, else .dynsym, through
 *    ElfFile), every constructor run; a stripped executable without `main` is refused.
 * Stateless; every failure is an IllegalStateException naming what is missing, which the
 * ProcessControl caller turns into dtrace's "failed to execute" line.
 */
package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.proc.ProcessControl.Evaltime;
import org.jdtrace.provider.fasttrap.internal.proc.ProcessMemory;
import org.jdtrace.provider.fasttrap.internal.proc.TracedProcess.StopPoint;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.provider.fasttrap.internal.sym.ProcessModules;

final class EvaltimeStops {

    private EvaltimeStops() {}

    static StopPoint of(Evaltime at) {
        return switch (at) {
            case EXEC -> StopPoint.EXEC;
            case PREINIT -> new Preinit();
            case POSTINIT -> StopPoint.ENTRY;
            case MAIN -> EvaltimeStops::main;
        };
    }

    /** First RT_CONSISTENT call of _dl_debug_state; r_debug's address found with it. */
    private static final class Preinit implements StopPoint {
        private long rDebug;

        @Override
        public long address(int pid, ProcessMemory mem) {
            List<MappedObject> modules = modules(pid);
            try {
                rDebug = RtldEvents.rDebug(modules);
                return rDebug == 0 ? 0 : RtldEvents.linkerSymbol(modules, "_dl_debug_state");
            } finally {
                ProcessModules.close(modules);
            }
        }

        @Override
        public boolean arrived(ProcessMemory mem) {
            return RtldEvents.consistent(mem, rDebug);
        }
    }

    private static long main(int pid, ProcessMemory mem) {
        List<MappedObject> modules = modules(pid);
        try {
            MappedObject exe = modules.stream().filter(MappedObject::executable).findFirst()
                    .orElseThrow(() -> new IllegalStateException("cannot find the executable of pid " + pid));
            Optional<ElfSymbol> main;
            try {
                main = exe.elf().symbol("main").filter(ElfSymbol::isDefined);
            } catch (ElfException e) {
                main = Optional.empty();
            }
            return main.map(s -> s.value() + exe.bias())
                    .orElseThrow(() -> new IllegalStateException("no symbol main in " + exe.path() + " for -x evaltime=main"));
        } finally {
            ProcessModules.close(modules);
        }
    }

    private static List<MappedObject> modules(int pid) {
        try {
            return ProcessModules.read(pid);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the mappings of pid " + pid + ": " + e.getMessage());
        }
    }
}
