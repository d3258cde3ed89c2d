package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.isa.Instruction;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.IsaException;
import org.jdtrace.provider.fasttrap.internal.proc.HitContext;
import org.jdtrace.provider.fasttrap.internal.proc.ProcessMemory;
import org.jdtrace.provider.fasttrap.internal.proc.TracedProcess;
import org.jdtrace.provider.fasttrap.internal.proc.TracepointException;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The dynamic linker's events in one traced process (libproc's rtld_db agent, glibc's r_debug
 * protocol; DTrace's dt_proc_rdevent).
 *
 * glibc's ld.so exports `struct r_debug _r_debug` in its .dynsym: r_version (int, offset 0),
 * r_map (8), r_brk (16: the address of _dl_debug_state, an empty function), r_state (24:
 * RT_CONSISTENT 0, RT_ADD 1, RT_DELETE 2). dlopen sets RT_ADD and calls r_brk before it maps
 * anything, then RT_CONSISTENT and r_brk again once the objects are mapped and relocated, before
 * their constructors run and before dlopen returns; dlclose does the same with RT_DELETE, the
 * RT_CONSISTENT call coming after the unmapping. The dynamic linker holds its load lock across
 * both calls, so no other thread maps or unmaps objects in between.
 *
 * One internal tracepoint on r_brk (an ordinary tracepoint of TracedProcess, planted when the
 * pid provider starts following the process, removed with all the others) reads r_state at each
 * call. At RT_CONSISTENT the listener runs through TracedProcess.whileHeld: on a worker thread,
 * while the thread inside the linker stays stopped, so the probes of a new object exist (and
 * retained enablings fire on them) before dlopen returns, and the probes of an unmapped object
 * are retired before anything else can be mapped there. A process with no dynamic linker (static)
 * has no _r_debug and gets no events. A process held right after exec (evaltime=exec) has r_brk
 * still 0: the tracepoint goes on _dl_debug_state, which r_brk will name. The hold is bounded (HOLD_SECONDS): a listener that cannot
 * finish in time goes on while the thread runs, rather than stall the target.
 */
final class RtldEvents {

    static final int RT_CONSISTENT = 0;
    private static final long R_BRK = 16, R_STATE = 24;
    private static final long HOLD_SECONDS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(RtldEvents.class);

    private RtldEvents() {}

    /**
     * Plants the r_brk tracepoint in {@code s}'s process; {@code listener} runs on {@code worker}
     * at each RT_CONSISTENT. Returns false (nothing planted) when the process has no _r_debug
     * or its r_brk is not set yet.
     */
    static boolean watch(ProcessState s, Isa isa, Runnable listener, Executor worker) {
        TracedProcess p = s.process;
        long rDebug, debugState;
        try {
            rDebug = rDebug(s.modules());
            debugState = linkerSymbol(s.modules(), "_dl_debug_state");
        } catch (IOException e) {
            return false;
        }
        if (rDebug == 0) return false;
        byte[] word = new byte[8];
        byte[] code = new byte[16];
        try {
            p.memory().read(rDebug + R_BRK, word, 0, 8);
            long brk = java.nio.ByteBuffer.wrap(word).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            if (brk == 0) brk = debugState; // held at exec: r_debug not set up yet
            if (brk == 0 || p.memory().readSome(brk, code, 0, code.length) == 0) return false;
            Instruction insn = isa.decode(code, 0, brk);
            if (isa.displacement(insn) == Isa.Displacement.REFUSE) return false;
            p.enable(List.of(new TracedProcess.Request(brk, insn, hit -> event(hit, rDebug, listener, worker))));
            return true;
        } catch (IsaException | TracepointException e) {
            LOG.debug("pid{}: no dynamic linker events: {}", s.pid(), e.getMessage());
            return false;
        }
    }

    /** The process address of ld.so's _r_debug, or 0. */
    static long rDebug(List<MappedObject> modules) {
        return linkerSymbol(modules, "_r_debug");
    }

    /**
     * The process address of {@code name} in the dynamic linker's .dynsym (glibc exports
     * _r_debug and, GLIBC_PRIVATE, _dl_debug_state, r_brk's value before ld.so fills r_debug in),
     * or 0.
     */
    static long linkerSymbol(List<MappedObject> modules, String name) {
        for (MappedObject o : modules.stream().sorted((a, b) -> Boolean.compare(!a.module().startsWith("ld"),
                !b.module().startsWith("ld"))).toList()) {
            try {
                Optional<ElfSymbol> sym = o.elf().dynamicSymbols().stream()
                        .filter(x -> x.name().equals(name) && x.isDefined()).findFirst();
                if (sym.isPresent()) return sym.get().value() + o.bias();
            } catch (ElfException e) {
                // not this one
            }
        }
        return 0;
    }

    /** Whether r_debug's r_state at {@code rDebug} reads RT_CONSISTENT. */
    static boolean consistent(org.jdtrace.isa.Memory mem, long rDebug) {
        byte[] b = new byte[4];
        try {
            mem.read(rDebug + R_STATE, b, 0, 4);
        } catch (IsaException e) {
            return false;
        }
        return ((b[0] & 0xff) | (b[1] & 0xff) << 8 | (b[2] & 0xff) << 16 | b[3] << 24) == RT_CONSISTENT;
    }

    /** The handler: control thread, the thread stopped at r_brk. */
    private static void event(HitContext hit, long rDebug, Runnable listener, Executor worker) {
        if (!consistent(hit.memory(), rDebug)) return;
        if (!hit.process().whileHeld(hit, listener, worker, HOLD_SECONDS, TimeUnit.SECONDS)) {
            LOG.warn("pid{}: the probes of a library loaded or unloaded are still being made; it runs on meanwhile",
                    hit.pid());
        }
    }
}
