package org.jdtrace.provider.fasttrap.internal.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/*
 * The system calls the pid provider makes, bound with the FFM API (no JNI, no helper binary).
 *
 * Every call that can fail captures errno through Linker.Option.captureCallState("errno"):
 * the JVM may itself make system calls between a downcall's return and a later read of errno,
 * so errno is copied into a per-call state segment by the downcall stub. A failure becomes a
 * SysException carrying the call's name and errno.
 *
 * An instance is not thread-safe: it owns native scratch buffers (the errno state, the register
 * block for PTRACE_GETREGS, the iovecs for process_vm_readv). current() gives each thread its
 * own. ptrace itself adds a stronger rule the caller must keep: every request for a tracee
 * comes from the OS thread that attached it (see ControlThread).
 *
 * The register block is the amd64 struct user_regs_struct (27 longs): this class is the one
 * place besides SyscallInjector that knows the kernel's ptrace ABI of x86-64.
 */
public final class Sys {

    // ptrace requests
    public static final int PTRACE_PEEKDATA = 2, PTRACE_POKEDATA = 5, PTRACE_CONT = 7,
            PTRACE_KILL = 8, PTRACE_SINGLESTEP = 9, PTRACE_GETREGS = 12, PTRACE_SETREGS = 13,
            PTRACE_DETACH = 17, PTRACE_SETOPTIONS = 0x4200, PTRACE_GETEVENTMSG = 0x4201,
            PTRACE_GETSIGINFO = 0x4202, PTRACE_SEIZE = 0x4206, PTRACE_INTERRUPT = 0x4207,
            PTRACE_LISTEN = 0x4208, PTRACE_SYSCALL = 24, PTRACE_GET_SYSCALL_INFO = 0x420e;
    /** struct ptrace_syscall_info.op: what kind of syscall-stop (kernel >= 5.3). */
    public static final int PTRACE_SYSCALL_INFO_NONE = 0, PTRACE_SYSCALL_INFO_ENTRY = 1,
            PTRACE_SYSCALL_INFO_EXIT = 2, PTRACE_SYSCALL_INFO_SECCOMP = 3;
    /** The stop signal of a syscall-stop under PTRACE_O_TRACESYSGOOD. */
    public static final int SYSCALL_STOP = 0x80 | 5;
    // ptrace options
    public static final int PTRACE_O_TRACESYSGOOD = 1, PTRACE_O_TRACEFORK = 2,
            PTRACE_O_TRACEVFORK = 4, PTRACE_O_TRACECLONE = 8, PTRACE_O_TRACEEXEC = 0x10,
            PTRACE_O_TRACEVFORKDONE = 0x20, PTRACE_O_TRACEEXIT = 0x40,
            PTRACE_O_EXITKILL = 0x100000;
    // ptrace events (status >> 16)
    public static final int PTRACE_EVENT_FORK = 1, PTRACE_EVENT_VFORK = 2, PTRACE_EVENT_CLONE = 3,
            PTRACE_EVENT_EXEC = 4, PTRACE_EVENT_VFORK_DONE = 5, PTRACE_EVENT_EXIT = 6,
            PTRACE_EVENT_STOP = 128;
    // wait flags
    public static final int WNOHANG = 1, WUNTRACED = 2, WCONTINUED = 8, WNOWAIT = 0x01000000,
            __WNOTHREAD = 0x20000000, __WALL = 0x40000000;
    // signals
    public static final int SIGHUP = 1, SIGINT = 2, SIGQUIT = 3, SIGILL = 4, SIGTRAP = 5,
            SIGABRT = 6, SIGBUS = 7, SIGFPE = 8, SIGKILL = 9, SIGUSR1 = 10, SIGSEGV = 11,
            SIGUSR2 = 12, SIGPIPE = 13, SIGALRM = 14, SIGTERM = 15, SIGCHLD = 17, SIGCONT = 18,
            SIGSTOP = 19, SIGTSTP = 20, SIGTTIN = 21, SIGTTOU = 22;
    /** si_code of a SIGTRAP raised by an int3 instruction. */
    public static final int SI_KERNEL = 0x80;

    /**
     * Words of the PTRACE_GETREGS buffer: more than any ISA's register file (amd64's
     * user_regs_struct has 27). Which word is which register is the ISA's (RegisterFile.raw()).
     */
    private static final int REGS_BUFFER_WORDS = 64;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_VH =
            STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle PTRACE = errnoCall("ptrace",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    private static final MethodHandle WAITPID = errnoCall("waitpid",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle VM_READV = errnoCall("process_vm_readv",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle VM_WRITEV = errnoCall("process_vm_writev",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle KILL = errnoCall("kill",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle TGKILL = errnoCall("tgkill",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle SIGACTION = errnoCall("sigaction",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle GETTID = plain("gettid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETPID = plain("getpid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle SCHED_GETCPU = plain("sched_getcpu", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle SIGRTMIN = plain("__libc_current_sigrtmin", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle SIGFILLSET = plain("sigfillset", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SIGEMPTYSET = plain("sigemptyset", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SPAWN = plain("posix_spawn",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle SPAWNATTR_INIT = plain("posix_spawnattr_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SPAWNATTR_DESTROY = plain("posix_spawnattr_destroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SPAWNATTR_FLAGS = plain("posix_spawnattr_setflags",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_SHORT));
    private static final MethodHandle SPAWNATTR_SIGMASK = plain("posix_spawnattr_setsigmask",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SPAWNATTR_SIGDEFAULT = plain("posix_spawnattr_setsigdefault",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    private static final MethodHandle PIPE2 = errnoCall("pipe2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CLOSE = plain("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FA_INIT = plain("posix_spawn_file_actions_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle FA_DESTROY = plain("posix_spawn_file_actions_destroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle FA_DUP2 = plain("posix_spawn_file_actions_adddup2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    /** glibc 2.34+: closes every descriptor from n up in the child (none of the JVM's leaks into a target). */
    private static final MethodHandle FA_CLOSEFROM = LIBC.find("posix_spawn_file_actions_addclosefrom_np")
            .map(s -> LINKER.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT))).orElse(null);
    private static final MethodHandle FA_OPEN = plain("posix_spawn_file_actions_addopen",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));

    private static final short POSIX_SPAWN_SETSIGDEF = 0x04, POSIX_SPAWN_SETSIGMASK = 0x08;

    private static final ThreadLocal<Sys> CURRENT = ThreadLocal.withInitial(Sys::new);

    private final Arena arena = Arena.ofAuto();
    private final MemorySegment state = arena.allocate(STATE);
    private final MemorySegment regs = arena.allocate(8L * REGS_BUFFER_WORDS, 8);
    private final MemorySegment word = arena.allocate(8, 8);
    private final MemorySegment iov = arena.allocate(32, 8);
    private MemorySegment buf = arena.allocate(4096, 8);

    private Sys() {}

    /** This thread's instance. */
    public static Sys current() {
        return CURRENT.get();
    }

    private static MethodHandle errnoCall(String name, FunctionDescriptor fd, Linker.Option... more) {
        Linker.Option[] opts = new Linker.Option[more.length + 1];
        opts[0] = ERRNO;
        System.arraycopy(more, 0, opts, 1, more.length);
        return LINKER.downcallHandle(symbol(name), fd, opts);
    }

    private static MethodHandle plain(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(symbol(name), fd);
    }

    private static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }

    private int errno() {
        return (int) ERRNO_VH.get(state, 0L);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    // ---------------------------------------------------------------- ptrace

    /** Raw ptrace; throws on -1. Not for PEEK requests (their -1 can be data). */
    public long ptrace(int request, int tid, long addr, long data) {
        long r;
        try {
            r = (long) PTRACE.invokeExact(state, request, tid, addr, data);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r == -1) throw new SysException("ptrace(" + request + ", " + tid + ")", errno());
        return r;
    }

    /** ptrace returning errno instead of throwing (0 on success). */
    public int ptraceErrno(int request, int tid, long addr, long data) {
        try {
            long r = (long) PTRACE.invokeExact(state, request, tid, addr, data);
            return r == -1 ? errno() : 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** PTRACE_GETREGS into {@code out}, an ISA's RegisterFile.raw() (its length is the layout's). */
    public void getRegs(int tid, long[] out) {
        assert out.length <= REGS_BUFFER_WORDS;
        ptrace(PTRACE_GETREGS, tid, 0, regs.address());
        MemorySegment.copy(regs, JAVA_LONG, 0, out, 0, out.length);
    }

    /** PTRACE_SETREGS from {@code in}, an ISA's RegisterFile.raw(). */
    public void setRegs(int tid, long[] in) {
        assert in.length <= REGS_BUFFER_WORDS;
        MemorySegment.copy(in, 0, regs, JAVA_LONG, 0, in.length);
        ptrace(PTRACE_SETREGS, tid, 0, regs.address());
    }

    public long getEventMsg(int tid) {
        ptrace(PTRACE_GETEVENTMSG, tid, 0, word.address());
        return word.get(JAVA_LONG, 0);
    }

    /** PTRACE_GETSIGINFO: {si_signo, si_code}. */
    public int[] getSigInfo(int tid) {
        ptrace(PTRACE_GETSIGINFO, tid, 0, buf.address());
        return new int[] {buf.get(JAVA_INT, 0), buf.get(JAVA_INT, 8)};
    }

    /**
     * PTRACE_GET_SYSCALL_INFO's op for a thread in a syscall-stop: entry or exit
     * (PTRACE_SYSCALL_INFO_*), NONE when it is in no syscall-stop.
     */
    public int syscallStopKind(int tid) {
        ptrace(PTRACE_GET_SYSCALL_INFO, tid, 88, buf.address());
        return buf.get(JAVA_BYTE, 0) & 0xff;
    }

    // ---------------------------------------------------------------- wait

    /** waitpid; returns (tid << 32) | (status & 0xffffffff), 0 with WNOHANG and nothing, -1 on EINTR. */
    public long waitpid(int pid, int flags) {
        int r;
        try {
            r = (int) WAITPID.invokeExact(state, pid, word, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r == -1) {
            int e = errno();
            if (e == SysException.EINTR) return -1;
            throw new SysException("waitpid(" + pid + ")", e);
        }
        if (r == 0) return 0;
        return ((long) r << 32) | (word.get(JAVA_INT, 0) & 0xffffffffL);
    }

    public static boolean exited(int st) { return (st & 0x7f) == 0; }
    public static int exitStatus(int st) { return (st >> 8) & 0xff; }
    public static boolean signaled(int st) { return (st & 0x7f) != 0 && (st & 0x7f) != 0x7f; }
    public static int termSig(int st) { return st & 0x7f; }
    public static boolean stopped(int st) { return (st & 0xff) == 0x7f; }
    public static int stopSig(int st) { return (st >> 8) & 0xff; }
    public static int event(int st) { return (st >> 16) & 0xff; }

    // ---------------------------------------------------------------- memory

    private MemorySegment buffer(int len) {
        if (buf.byteSize() < len) buf = arena.allocate(Math.max(len, (int) buf.byteSize() * 2), 8);
        return buf;
    }

    /** process_vm_readv of {@code len} bytes; returns the byte count read (short on a fault). */
    public int readMemory(int pid, long addr, byte[] out, int off, int len) {
        MemorySegment b = buffer(len);
        iov.set(JAVA_LONG, 0, b.address());
        iov.set(JAVA_LONG, 8, len);
        iov.set(JAVA_LONG, 16, addr);
        iov.set(JAVA_LONG, 24, len);
        long r;
        try {
            r = (long) VM_READV.invokeExact(state, pid, iov, 1L, iov.asSlice(16), 1L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r < 0) return 0;
        MemorySegment.copy(b, ValueLayout.JAVA_BYTE, 0, out, off, (int) r);
        return (int) r;
    }

    /** process_vm_writev; only writable mappings (not text). Returns the byte count written. */
    public int writeMemory(int pid, long addr, byte[] in, int off, int len) {
        MemorySegment b = buffer(len);
        MemorySegment.copy(in, off, b, ValueLayout.JAVA_BYTE, 0, len);
        iov.set(JAVA_LONG, 0, b.address());
        iov.set(JAVA_LONG, 8, len);
        iov.set(JAVA_LONG, 16, addr);
        iov.set(JAVA_LONG, 24, len);
        long r;
        try {
            r = (long) VM_WRITEV.invokeExact(state, pid, iov, 1L, iov.asSlice(16), 1L, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r < 0 ? 0 : (int) r;
    }

    // ---------------------------------------------------------------- signals, ids

    public void kill(int pid, int sig) {
        int r;
        try {
            r = (int) KILL.invokeExact(state, pid, sig);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r == -1) throw new SysException("kill(" + pid + ", " + sig + ")", errno());
    }

    /** tgkill; returns errno (0 on success). */
    public int tgkill(int pid, int tid, int sig) {
        try {
            int r = (int) TGKILL.invokeExact(state, pid, tid, sig);
            return r == -1 ? errno() : 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int gettid() {
        return intOf(GETTID);
    }

    public static int getpid() {
        return intOf(GETPID);
    }

    /** The CPU the calling thread runs on (sched_getcpu: rseq or vDSO, no system call). */
    public static int cpu() {
        return Math.max(intOf(SCHED_GETCPU), 0);
    }

    public static int sigrtmin() {
        return intOf(SIGRTMIN);
    }

    /** The result of a libc function that takes nothing and returns an int (and cannot fail). */
    private static int intOf(MethodHandle noArgs) {
        try {
            return (int) noArgs.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Installs a handler for {@code sig} that does nothing and does not set SA_RESTART, so the
     * signal makes a blocking waitpid in the receiving thread return EINTR. The handler is
     * libc's getpid: async-signal-safe, no side effect, and its int result is ignored.
     */
    public void installWakeupHandler(int sig) {
        MemorySegment sa = arena.allocate(152, 8);
        sa.set(JAVA_LONG, 0, symbol("getpid").address());
        try {
            int r = (int) SIGEMPTYSET.invokeExact(sa.asSlice(8, 128));
            sa.set(JAVA_INT, 136, 0);
            r = (int) SIGACTION.invokeExact(state, sig, sa, MemorySegment.NULL);
            if (r == -1) throw new SysException("sigaction(" + sig + ")", errno());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- spawn

    /**
     * posix_spawn(path, argv, envp) with every signal at its default disposition and an empty
     * signal mask (the JVM's thread masks and ignored signals must not leak into the target).
     * The child is a child of the calling thread (waitpid with __WNOTHREAD sees it).
     */
    public int spawn(String path, List<String> argv, List<String> envp) {
        return spawn(path, argv, envp, List.of());
    }

    /** One file action of {@link #spawn(String, List, List, List)}: dup2(fd, target) or open(path) as target. */
    public record FileAction(int target, int fd, String path, int flags) {
        public static FileAction dup2(int fd, int target) {
            return new FileAction(target, fd, null, 0);
        }

        public static FileAction open(String path, int target, int flags) {
            return new FileAction(target, -1, path, flags);
        }
    }

    public static final int O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 0x40, O_TRUNC = 0x200, O_CLOEXEC = 0x80000;

    /** pipe2(O_CLOEXEC): {read end, write end}. */
    public int[] pipe() {
        MemorySegment fds = arena.allocate(8, 4);
        try {
            int r = (int) PIPE2.invokeExact(state, fds, O_CLOEXEC);
            if (r == -1) throw new SysException("pipe2", errno());
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return new int[] {fds.get(JAVA_INT, 0), fds.get(JAVA_INT, 4)};
    }

    public static void close(int fd) {
        try {
            int unused = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * posix_spawn with file actions applied in the child before the exec; then every descriptor
     * from 3 up is closed in the child (the JVM's own files, which are not all close-on-exec,
     * are no business of the traced program: its first open() gets 3, as from a shell).
     */
    public int spawn(String path, List<String> argv, List<String> envp, List<FileAction> actions) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment fa = a.allocate(256, 16);
            int rr = (int) FA_INIT.invokeExact(fa);
            for (FileAction act : actions) {
                rr = act.path() == null ? (int) FA_DUP2.invokeExact(fa, act.fd(), act.target())
                        : (int) FA_OPEN.invokeExact(fa, act.target(), a.allocateFrom(act.path()), act.flags(), 0644);
                if (rr != 0) throw new SysException("posix_spawn_file_actions", rr);
            }
            boolean closeFrom = FA_CLOSEFROM != null && (int) FA_CLOSEFROM.invokeExact(fa, 3) == 0;
            try {
                return spawnWith(a, path, argv, envp, actions.isEmpty() && !closeFrom ? MemorySegment.NULL : fa);
            } finally {
                rr = (int) FA_DESTROY.invokeExact(fa);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private int spawnWith(Arena a, String path, List<String> argv, List<String> envp, MemorySegment fa) {
        try {
            MemorySegment attr = a.allocate(512, 16);
            MemorySegment set = a.allocate(128, 8);
            int r = (int) SPAWNATTR_INIT.invokeExact(attr);
            r = (int) SIGFILLSET.invokeExact(set);
            r = (int) SPAWNATTR_SIGDEFAULT.invokeExact(attr, set);
            r = (int) SIGEMPTYSET.invokeExact(set);
            r = (int) SPAWNATTR_SIGMASK.invokeExact(attr, set);
            r = (int) SPAWNATTR_FLAGS.invokeExact(attr, (short) (POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK));
            MemorySegment pid = a.allocate(JAVA_INT);
            int err = (int) SPAWN.invokeExact(pid, a.allocateFrom(path), fa, attr,
                    strings(a, argv), strings(a, envp));
            r = (int) SPAWNATTR_DESTROY.invokeExact(attr);
            if (err != 0) throw new SysException("posix_spawn(" + path + ")", err);
            return pid.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static MemorySegment strings(Arena a, List<String> list) {
        MemorySegment arr = a.allocate(ADDRESS, list.size() + 1);
        for (int i = 0; i < list.size(); i++) arr.setAtIndex(ADDRESS, i, a.allocateFrom(list.get(i)));
        arr.setAtIndex(ADDRESS, list.size(), MemorySegment.NULL);
        return arr;
    }
}
