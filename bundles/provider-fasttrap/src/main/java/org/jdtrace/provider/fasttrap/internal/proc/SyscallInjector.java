package org.jdtrace.provider.fasttrap.internal.proc;

import org.jdtrace.provider.fasttrap.internal.sys.Sys;

/*
 * Makes a stopped tracee thread run one system call for the tracer (amd64): used at set-up and
 * tear-down only, to mmap and munmap the scratch space that out-of-line instructions run from.
 *
 * The thread's registers are saved; "syscall; int3" (0f 05 cc) is written over the process's
 * entry point (AT_ENTRY: _start, which never runs again once the program is started, and
 * whose page every process has); rip points there with rax = the syscall number and the
 * arguments in rdi rsi rdx r10 r8 r9. orig_rax is set to -1 so that, if the thread was stopped
 * inside an interrupted system call, the kernel does not apply its restart logic to our
 * registers. PTRACE_CONT runs the syscall and stops at the int3 (no single-step); rax is the
 * result. Then the bytes and the saved registers (orig_rax included, so the interrupted call
 * restarts as it would have) are put back. A signal that arrives meanwhile is held and sent
 * again to the thread afterwards.
 *
 * Caller: the control thread, with {@code tid} in a ptrace-stop.
 */
final class SyscallInjector {

    static final long SYS_MMAP = 9, SYS_MUNMAP = 11;
    private static final byte[] CODE = {0x0f, 0x05, (byte) 0xcc};

    private SyscallInjector() {}

    static long syscall(Sys sys, ProcessMemory mem, int pid, int tid, long nr, long... args) {
        long site = Auxv.get(pid, Auxv.AT_ENTRY);
        if (site == 0) throw new IllegalStateException("process " + pid + " has no AT_ENTRY");
        long[] saved = new long[Sys.NREGS];
        sys.getRegs(tid, saved);
        byte[] orig = new byte[CODE.length];
        if (mem.readSome(site, orig, 0, orig.length) != orig.length || !mem.writeText(site, CODE)) {
            throw new IllegalStateException("cannot write at the entry point of process " + pid);
        }
        int held = 0;
        try {
            long[] r = saved.clone();
            r[Sys.RIP] = site;
            r[Sys.RAX] = nr;
            r[Sys.ORIG_RAX] = -1;
            int[] argRegs = {Sys.RDI, Sys.RSI, Sys.RDX, Sys.R10, Sys.R8, Sys.R9};
            for (int i = 0; i < args.length; i++) r[argRegs[i]] = args[i];
            sys.setRegs(tid, r);
            sys.ptrace(Sys.PTRACE_CONT, tid, 0, 0);
            for (;;) {
                long w = sys.waitpid(tid, Sys.__WALL);
                if (w == -1) continue;
                int st = (int) w;
                if (!Sys.stopped(st)) throw new IllegalStateException("thread " + tid + " died during a system call injection");
                int sig = Sys.stopSig(st);
                if (Sys.event(st) == 0 && sig == Sys.SIGTRAP) {
                    sys.getRegs(tid, r);
                    if (r[Sys.RIP] == site + CODE.length) return r[Sys.RAX];
                }
                if (Sys.event(st) == 0 && sig != Sys.SIGTRAP) held = sig;
                sys.ptrace(Sys.PTRACE_CONT, tid, 0, 0);
            }
        } finally {
            mem.writeText(site, orig);
            sys.setRegs(tid, saved);
            if (held != 0) sys.tgkill(pid, tid, held);
        }
    }

    /** mmap(hint, size, RWX, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE): the address. */
    static long mmapScratch(Sys sys, ProcessMemory mem, int pid, int tid, long hint, long size) {
        long r = syscall(sys, mem, pid, tid, SYS_MMAP, hint, size, 7, 0x02 | 0x20 | 0x4000, -1, 0);
        if (r < 0 && r > -4096) throw new IllegalStateException("mmap in process " + pid + " failed: errno " + (-r));
        return r;
    }

    static void munmap(Sys sys, ProcessMemory mem, int pid, int tid, long addr, long size) {
        syscall(sys, mem, pid, tid, SYS_MUNMAP, addr, size);
    }
}
