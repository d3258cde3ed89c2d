package org.jdtrace.provider.fasttrap.internal.proc;

import org.jdtrace.isa.Abi;
import org.jdtrace.isa.Isa;
import org.jdtrace.isa.RegisterFile;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;

/*
 * Makes a stopped tracee thread run one system call for the tracer: used at set-up and
 * tear-down only, to mmap and munmap the scratch space that out-of-line instructions run from.
 * Every machine fact (the call's number, its registers, the instruction bytes) comes from the
 * Isa and its Abi.
 *
 * The thread's registers are saved; the ISA's system call instruction followed by its breakpoint
 * (amd64: "syscall; int3", 0f 05 cc) is written over the process's entry point (AT_ENTRY:
 * _start, which never runs again once the program is started, and whose page every process
 * has); the pc points there and Abi.setSyscall puts the number and arguments in place (and,
 * amd64, orig_rax = -1 so that, if the thread was stopped inside an interrupted system call, the
 * kernel does not apply its restart logic to our registers). PTRACE_CONT runs the syscall and
 * stops at the breakpoint (no single-step); Abi.syscallReturn is the result. Then the bytes and
 * the saved registers (orig_rax included, so the interrupted call restarts as it would have) are
 * put back. A signal that arrives meanwhile is held and sent again to the thread afterwards.
 *
 * Caller: the control thread, with {@code tid} in a ptrace-stop.
 */
final class SyscallInjector {

    /** mmap(2)'s PROT_READ|PROT_WRITE|PROT_EXEC and MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE (Linux's generic values). */
    private static final long PROT_RWX = 7, MAP_PRIVATE_ANONYMOUS_NORESERVE = 0x02 | 0x20 | 0x4000;

    private SyscallInjector() {}

    /** Runs system call {@code name} (as the kernel names it: mmap) in thread {@code tid}: its return value. */
    static long syscall(Isa isa, Sys sys, ProcessMemory mem, int pid, int tid, String name, long... args) {
        Abi abi = isa.abi();
        long nr = abi.syscallNumberOf(name);
        if (nr < 0) throw new IllegalStateException("no system call " + name + " for " + isa.name());
        byte[] call = isa.syscallInstruction(), trap = isa.breakpoint();
        byte[] code = java.util.Arrays.copyOf(call, call.length + trap.length);
        System.arraycopy(trap, 0, code, call.length, trap.length);
        long site = Auxv.get(pid, Auxv.AT_ENTRY);
        if (site == 0) throw new IllegalStateException("process " + pid + " has no AT_ENTRY");
        RegisterFile saved = isa.newRegisterFile();
        sys.getRegs(tid, saved.raw());
        byte[] orig = new byte[code.length];
        if (mem.readSome(site, orig, 0, orig.length) != orig.length || !mem.writeText(site, code)) {
            throw new IllegalStateException("cannot write at the entry point of process " + pid);
        }
        int held = 0;
        try {
            RegisterFile r = isa.newRegisterFile();
            System.arraycopy(saved.raw(), 0, r.raw(), 0, r.raw().length);
            r.setPc(site);
            abi.setSyscall(r, nr, args);
            sys.setRegs(tid, r.raw());
            sys.ptrace(Sys.PTRACE_CONT, tid, 0, 0);
            for (;;) {
                long w = sys.waitpid(tid, Sys.__WALL);
                if (w == -1) continue;
                int st = (int) w;
                if (!Sys.stopped(st)) throw new IllegalStateException("thread " + tid + " died during a system call injection");
                int sig = Sys.stopSig(st);
                if (Sys.event(st) == 0 && sig == Sys.SIGTRAP) {
                    sys.getRegs(tid, r.raw());
                    if (r.pc() == site + code.length) return abi.syscallReturn(r);
                }
                if (Sys.event(st) == 0 && sig != Sys.SIGTRAP) held = sig;
                sys.ptrace(Sys.PTRACE_CONT, tid, 0, 0);
            }
        } finally {
            mem.writeText(site, orig);
            sys.setRegs(tid, saved.raw());
            if (held != 0) sys.tgkill(pid, tid, held);
        }
    }

    /** mmap(hint, size, RWX, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE): the address. */
    static long mmapScratch(Isa isa, Sys sys, ProcessMemory mem, int pid, int tid, long hint, long size) {
        long r = syscall(isa, sys, mem, pid, tid, "mmap", hint, size, PROT_RWX, MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0);
        if (r < 0 && r > -4096) throw new IllegalStateException("mmap in process " + pid + " failed: errno " + (-r));
        return r;
    }

    static void munmap(Isa isa, Sys sys, ProcessMemory mem, int pid, int tid, long addr, long size) {
        syscall(isa, sys, mem, pid, tid, "munmap", addr, size);
    }
}
