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
import org.jdtrace.provider.fasttrap.internal.sys.Sys;
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
 *
 * On the uprobe path (watchOnUprobes) the process runs untraced, so nothing of ptrace can hold
 * it. Choices weighed: polling /proc/PID/maps or perf's PERF_RECORD_MMAP2 records of the target
 * (both see a mapping only after the fact, with dlopen long returned and the library's first
 * calls gone unseen), uprobes on dlopen/dlclose returns (the same lag), ptrace kept for an r_brk
 * int3 (a killed dtrace would leave it there: SIGTRAP kills the program at its next dlopen).
 * Chosen: a kernel uprobe on r_brk for that process whose BPF program, right after writing the
 * hit's record, sends the process SIGSTOP (UprobeSites.signal; bpf_send_signal): the thread
 * stops as it returns from _dl_debug_state, the whole process with it. The drain thread hands the
 * record to the worker, which waits for the stop (/proc/PID/stat), reads r_state, runs the
 * listener at RT_CONSISTENT (the probes of new objects are uprobes before dlopen returns; those
 * of objects gone are retired before anything else can be mapped there) and releases its hold
 * (Holds: taken on the drain thread, released every time, in a finally), after which Holds
 * continues the process once no other hold of it (a destructive probe's hit) is left. Costs and limits, documented in README: two short stops per
 * dlopen/dlclose (RT_ADD/RT_DELETE and RT_CONSISTENT, a drain period each); a shell with job
 * control sees them (a -p target in its foreground may be reported stopped, which is why
 * ProcessControlImpl.watchLinker watches a grabbed process only once a description could match an
 * object mapped later, a created one, dtrace's own child, from the start); a dtrace killed in
 * the milliseconds of a hold leaves it running all the same (ContinueGuard, a shell that sends
 * SIGCONT when this JVM's pipe to it ends); a
 * process stopped by someone else at that moment is continued; two dtrace runs watching one
 * process each stop it, and the first done continues it (the other may miss the new library's
 * first calls). The link closes with the
 * process's state (ProcessState.close) or with a killed JVM's descriptors. The same uprobe
 * fires in the new image of a process that exec'd (the same ld.so file): its executable is no
 * longer mapped where it was, and that is the exec the uprobe path otherwise cannot see (the
 * process untraced): the pid provider retires its probes as at a ptrace exec event. A process
 * that execs a static executable, or none of whose hits were watched, is seen only at its end.
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
        byte[] code = new byte[isa.maxInstructionLength()];
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

    /**
     * The uprobe path's watch (see above): a uprobe on r_brk in {@code s}'s process that stops it
     * at each call, {@code listener} run on {@code worker} at each RT_CONSISTENT while it is
     * stopped, then SIGCONT. Null (nothing attached) when the process has no _r_debug or the
     * kernel refuses the probe (one debug line: the process's dlopens are then not seen).
     */
    static AutoCloseable watchOnUprobes(ProcessState s, UprobeSites k, ContinueGuard guard, Runnable listener, Runnable exec,
            Executor worker) {
        long rDebug, brk;
        try {
            List<MappedObject> modules = s.modules();
            rDebug = rDebug(modules);
            if (rDebug == 0) return null;
            byte[] word = new byte[8];
            s.process.memory().read(rDebug + R_BRK, word, 0, 8);
            brk = java.nio.ByteBuffer.wrap(word).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            if (brk == 0) brk = linkerSymbol(modules, "_dl_debug_state"); // held at exec
            if (brk == 0) return null;
        } catch (IOException | IsaException e) {
            LOG.debug("pid{}: no dynamic linker events: {}", s.pid(), e.getMessage());
            return null;
        }
        Object order = new Object(); // one event at a time, in the order the process made them
        int pid = s.pid();
        guard.register(pid); // before the first hold can come: a JVM that dies mid-hold leaves it running
        try {
            UprobeSites.Handle h = k.attach(s, List.of(brk), 0, false, 0, hit -> {
                // a hold of its own, beyond UprobeSites.hit's: released by the worker once done
                k.holds.acquire(pid);
                try {
                    worker.execute(() -> {
                        try {
                            synchronized (order) {
                                heldEvent(s, rDebug, listener, exec);
                            }
                        } finally {
                            k.holds.release(pid);
                        }
                    });
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    k.holds.release(pid);
                }
            });
            k.signal(h, Sys.SIGSTOP);
            return () -> {
                try {
                    h.close();
                } finally {
                    guard.unregister(pid);
                }
            };
        } catch (UprobeSites.UprobeRefused e) {
            guard.unregister(pid);
            LOG.debug("pid{}: no dynamic linker events: {}", s.pid(), e.getMessage());
            return null;
        }
    }

    /**
     * Worker thread: the process stopped at r_brk by the kernel; the listener at RT_CONSISTENT,
     * {@code exec} instead when this is the dynamic linker of a new image (the process exec'd:
     * the same ld.so file, so the same uprobe, in a new address space); the caller then releases
     * its hold (Holds continues the process).
     */
    private static void heldEvent(ProcessState s, long rDebug, Runnable listener, Runnable exec) {
        try {
            if (!s.awaitStopped(TimeUnit.SECONDS.toNanos(HOLD_SECONDS))) return; // gone (or never stopped)
            if (s.defunct()) return;
            if (s.execdSince()) exec.run();
            else if (consistent(s.process.memory(), rDebug)) listener.run();
        } catch (RuntimeException e) {
            LOG.warn("pid{}: the probes of a library loaded or unloaded: {}", s.pid(), e.getMessage());
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
