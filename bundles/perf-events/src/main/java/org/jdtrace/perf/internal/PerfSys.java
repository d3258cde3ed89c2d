/*
 * The system calls of the kernel's event facilities, bound with the FFM API (no JNI, no helper
 * binary): perf_event_open(2), bpf(2), ioctl, mmap, munmap, close, ppoll (for poll), eventfd2
 * (for eventfd), read, write and tgkill, every one through one downcall handle: libc's variadic
 * syscall(2) with six long arguments (pointers pass as their addresses, unused arguments as 0).
 * One handle because each FunctionDescriptor linked costs its own LambdaForms and hidden classes
 * on first use (tens of milliseconds of start-up CPU for a dozen of them). The call numbers are
 * not known here: they come from the ISA's table (Abi.syscallNumberOf), so this class holds no
 * number of any ISA; an ISA whose table lacks one of them is refused when the PerfSys is made.
 *
 * The kernel's calls differ from libc's wrappers where libc's wrappers are not plain: poll is
 * ppoll with a timespec (poll is not in every ISA's table; ppoll is), eventfd is eventfd2. The
 * kernel's failure is -errno (-4095..-1, mmap's too); syscall(2) turns every one into -1 with
 * errno set, so a failure is -1 for every call, mmap's included (no mapping is at -1).
 *
 * Every call captures errno through Linker.Option.captureCallState("errno") (the JVM may make
 * system calls of its own before errno is read) and a failure becomes a PerfException naming the
 * call and the kernel's reason (strerror's words; strerror's own handle is linked on the first
 * failure only).
 *
 * Thread-safety: the method handle is shared; every call allocates its argument block in a
 * confined arena of its own, so an instance may be used from any thread. These calls are made on
 * enable/disable paths, never in probe context.
 *
 * The struct layouts (perf_event_attr version 7, 128 bytes; bpf_attr for MAP_CREATE,
 * MAP_*_ELEM and PROG_LOAD) are those of /usr/include/linux/perf_event.h and bpf.h; they are
 * the same on every 64-bit Linux.
 */
package org.jdtrace.perf.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.PerfException;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

public final class PerfSys {

    // perf_event_attr.type
    public static final int TYPE_HARDWARE = 0, TYPE_SOFTWARE = 1, TYPE_TRACEPOINT = 2;
    // software configs
    public static final int SW_CPU_CLOCK = 0, SW_DUMMY = 9, SW_BPF_OUTPUT = 10;
    // sample_type bits
    public static final long SAMPLE_IP = 1, SAMPLE_TID = 2, SAMPLE_TIME = 4, SAMPLE_CALLCHAIN = 32,
            SAMPLE_CPU = 128, SAMPLE_PERIOD = 256, SAMPLE_RAW = 1024, SAMPLE_REGS_USER = 4096,
            SAMPLE_STACK_USER = 8192;
    // flag bits (the bitfield word at offset 40)
    public static final long F_DISABLED = 1, F_INHERIT = 2, F_EXCLUDE_USER = 1 << 4,
            F_EXCLUDE_KERNEL = 1 << 5, F_EXCLUDE_HV = 1 << 6, F_EXCLUDE_IDLE = 1 << 7,
            F_COMM = 1 << 9, F_FREQ = 1 << 10, F_TASK = 1 << 13, F_SAMPLE_ID_ALL = 1 << 18,
            F_USE_CLOCKID = 1 << 25, F_MMAP = 1 << 8, F_MMAP2 = 1 << 23, F_COMM_EXEC = 1 << 24;
    private static final int CLOCK_MONOTONIC = 1;
    // record types
    public static final int RECORD_LOST = 2, RECORD_COMM = 3, RECORD_EXIT = 4, RECORD_FORK = 7,
            RECORD_SAMPLE = 9, RECORD_MMAP2 = 10;
    /** PERF_RECORD_MISC_COMM_EXEC: a comm record made by exec. */
    public static final int MISC_COMM_EXEC = 1 << 13;
    // ioctls
    public static final long IOC_ENABLE = 0x2400, IOC_DISABLE = 0x2401, IOC_SET_BPF = 0x40042408L;
    public static final int ATTR_SIZE = 128;

    // bpf commands, map and program types
    public static final int BPF_MAP_CREATE = 0, BPF_MAP_LOOKUP_ELEM = 1, BPF_MAP_UPDATE_ELEM = 2,
            BPF_MAP_DELETE_ELEM = 3, BPF_PROG_LOAD = 5;
    public static final int MAP_ARRAY = 2, MAP_PERF_EVENT_ARRAY = 4, MAP_PERCPU_ARRAY = 6, MAP_LRU_HASH = 9;
    public static final int MAP_HASH = 1, MAP_PROG_ARRAY = 3, MAP_PERCPU_HASH = 5, MAP_STACK_TRACE = 7, BPF_MAP_GET_NEXT_KEY = 4;
    public static final int PROG_KPROBE = 2, PROG_TRACEPOINT = 5, PROG_PERF_EVENT = 7;
    /** BPF_LINK_CREATE, and enum bpf_attach_type's BPF_TRACE_UPROBE_MULTI (newer than this machine's bpf.h). */
    public static final int BPF_LINK_CREATE = 28, TRACE_UPROBE_MULTI = 48;

    private static final int PROT_READ = 1, PROT_WRITE = 2, MAP_SHARED = 1;

    // The downcall handle is made on first use (a holder class): making it spins classes and
    // costs milliseconds, and start-up (a bundle start that only registers providers) needs none.
    private static final class Libc {
        /** long syscall(long number, ...) with six long arguments, errno captured. */
        static final MethodHandle SYSCALL = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("syscall").orElseThrow(() -> new UnsatisfiedLinkError("libc has no syscall")),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
    }

    /** strerror, linked on the first failure (the failure path only). */
    private static final class Strerror {
        static final MethodHandle STRERROR = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("strerror").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private static final MemoryLayout STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_VH = STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    /** Where a {@link #callState} segment keeps ppoll's struct timespec, after the captured state. */
    private static final long TIMESPEC = (STATE.byteSize() + 7) & ~7L;

    /** The calls' numbers in the ISA's table. */
    private final long nrPerfEventOpen, nrBpf, nrIoctl, nrMmap, nrMunmap, nrClose, nrPpoll, nrEventfd2, nrRead,
            nrWrite, nrTgkill;

    /** The calls as {@code abi}'s system-call table numbers them; an ISA lacking one is refused. */
    public PerfSys(Abi abi) {
        this.nrPerfEventOpen = number(abi, "perf_event_open");
        this.nrBpf = number(abi, "bpf");
        this.nrIoctl = number(abi, "ioctl");
        this.nrMmap = number(abi, "mmap");
        this.nrMunmap = number(abi, "munmap");
        this.nrClose = number(abi, "close");
        this.nrPpoll = number(abi, "ppoll");
        this.nrEventfd2 = number(abi, "eventfd2");
        this.nrRead = number(abi, "read");
        this.nrWrite = number(abi, "write");
        this.nrTgkill = number(abi, "tgkill");
    }

    private static long number(Abi abi, String name) {
        long nr = abi.syscallNumberOf(name);
        if (nr < 0) throw new IllegalStateException("the ISA's system-call table has no " + name);
        return nr;
    }

    /** syscall(nr, a..f): the kernel's result, or -1 with errno in {@code st}. */
    private static long syscall(MemorySegment st, long nr, long a, long b, long c, long d, long e, long f) {
        try {
            return (long) Libc.SYSCALL.invokeExact(st, nr, a, b, c, d, e, f);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** What one perf_event_attr asks for (the fields this bundle uses). */
    public record Attr(int type, long config, long period, boolean freq, long sampleType, long flags,
            long regsUser, int wakeupEvents, int stackUser) {

        public Attr(int type, long config, long period, boolean freq, long sampleType, long flags, long regsUser,
                int wakeupEvents) {
            this(type, config, period, freq, sampleType, flags, regsUser, wakeupEvents, 0);
        }
    }

    /** perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC): the event's descriptor. */
    public int perfEventOpen(Attr a, int pid, int cpu) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ATTR_SIZE, 8);
            attr.set(JAVA_INT, 0, a.type());
            attr.set(JAVA_INT, 4, ATTR_SIZE);
            attr.set(JAVA_LONG, 8, a.config());
            attr.set(JAVA_LONG, 16, a.period());
            attr.set(JAVA_LONG, 24, a.sampleType());
            // every sample's time on CLOCK_MONOTONIC, the clock of System.nanoTime and D's timestamp
            attr.set(JAVA_LONG, 40, a.flags() | (a.freq() ? F_FREQ : 0) | F_USE_CLOCKID);
            attr.set(JAVA_INT, 92, CLOCK_MONOTONIC);
            attr.set(JAVA_INT, 48, a.wakeupEvents());
            attr.set(JAVA_LONG, 80, a.regsUser());
            attr.set(JAVA_INT, 88, a.stackUser()); // sample_stack_user
            MemorySegment st = arena.allocate(STATE);
            long fd = syscall(st, nrPerfEventOpen, attr.address(), pid, cpu, -1L, 8L /* FD_CLOEXEC */, 0L);
            if (fd < 0) throw failure("perf_event_open", st);
            return (int) fd;
        }
    }

    public void ioctl(int fd, long request, long arg) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATE);
            long r = syscall(st, nrIoctl, fd, request, arg, 0L, 0L, 0L);
            if (r < 0) throw failure("ioctl", st);
        }
    }

    /** mmap(fd) shared, read-write (the ring's control page and data pages). */
    public MemorySegment mmap(int fd, long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATE);
            long p = syscall(st, nrMmap, 0L, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0L);
            if (p == -1L) throw failure("mmap", st); // syscall(2)'s failure, the kernel's -errno
            return MemorySegment.ofAddress(p).reinterpret(size);
        }
    }

    public void munmap(MemorySegment m) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATE);
            syscall(st, nrMunmap, m.address(), m.byteSize(), 0L, 0L, 0L, 0L);
        }
    }

    public void close(int fd) {
        if (fd < 0) return;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATE);
            syscall(st, nrClose, fd, 0L, 0L, 0L, 0L, 0L);
        }
    }

    /** bpf(cmd, attr, size) with attr filled by the caller; the result (a descriptor for creates). */
    public int bpf(int cmd, MemorySegment attr, String what) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATE);
            long r = syscall(st, nrBpf, cmd, attr.address(), (int) attr.byteSize(), 0L, 0L, 0L);
            Reference.reachabilityFence(attr);
            if (r < 0) throw failure(what, st);
            return (int) r;
        }
    }

    /** BPF_MAP_CREATE: a map's descriptor. */
    public int mapCreate(int type, int keySize, int valueSize, int maxEntries, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(72, 8);
            a.set(JAVA_INT, 0, type);
            a.set(JAVA_INT, 4, keySize);
            a.set(JAVA_INT, 8, valueSize);
            a.set(JAVA_INT, 12, maxEntries);
            setName(a, 28, name);
            return bpf(BPF_MAP_CREATE, a, "bpf map " + name);
        }
    }

    /** BPF_MAP_UPDATE_ELEM with a 4-byte key and an int or long value. */
    public void mapUpdate(int mapFd, int key, long value, int valueSize) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(8, 8);
            if (valueSize == 4) v.set(JAVA_INT, 0, (int) value);
            else v.set(JAVA_LONG, 0, value);
            mapUpdate(arena, mapFd, key, v);
        }
    }

    /** BPF_MAP_UPDATE_ELEM (BPF_ANY) of a 4-byte key and the value {@code v}. */
    private void mapUpdate(Arena arena, int mapFd, int key, MemorySegment v) {
        MemorySegment k = arena.allocate(4);
        k.set(JAVA_INT, 0, key);
        MemorySegment a = arena.allocate(32, 8);
        a.set(JAVA_INT, 0, mapFd);
        a.set(JAVA_LONG, 8, k.address());
        a.set(JAVA_LONG, 16, v.address());
        a.set(JAVA_LONG, 24, 0L);
        bpf(BPF_MAP_UPDATE_ELEM, a, "bpf map update");
    }

    /** BPF_MAP_UPDATE_ELEM (BPF_ANY) of a 4-byte key and a 16-byte value, {@code low} then {@code high}. */
    public void mapUpdate(int mapFd, int key, long low, long high) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(16, 8);
            v.set(JAVA_LONG, 0, low);
            v.set(JAVA_LONG, 8, high);
            mapUpdate(arena, mapFd, key, v);
        }
    }

    /** BPF_MAP_LOOKUP_ELEM with a 4-byte key and an 8-byte value: the value, or Long.MIN_VALUE when the key is absent. */
    public long mapLookup(int mapFd, int key) {
        byte[] v = new byte[8];
        if (!mapBytes(BPF_MAP_LOOKUP_ELEM, mapFd, java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(key).array(), v)) {
            return Long.MIN_VALUE; // ENOENT
        }
        return java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** BPF_MAP_DELETE_ELEM of {@code key}: false when the map has no such key. */
    public boolean mapDelete(int mapFd, byte[] key) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment k = arena.allocate(key.length, 8).copyFrom(MemorySegment.ofArray(key));
            MemorySegment a = arena.allocate(32, 8); // the fields after key must be zero
            a.set(JAVA_INT, 0, mapFd);
            a.set(JAVA_LONG, 8, k.address());
            try {
                bpf(BPF_MAP_DELETE_ELEM, a, "bpf map delete");
            } catch (PerfException e) {
                return false; // ENOENT
            }
            return true;
        }
    }

    /**
     * BPF_MAP_LOOKUP_ELEM (cmd BPF_MAP_LOOKUP_ELEM) or BPF_MAP_GET_NEXT_KEY (cmd 4) with byte
     * buffers: {@code out} filled; false when the key is absent (or is the last).
     */
    public boolean mapBytes(int cmd, int mapFd, byte[] key, byte[] out) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment k = key == null ? MemorySegment.NULL : arena.allocate(key.length, 8).copyFrom(MemorySegment.ofArray(key));
            MemorySegment v = arena.allocate(out.length, 8);
            MemorySegment a = arena.allocate(32, 8);
            a.set(JAVA_INT, 0, mapFd);
            a.set(JAVA_LONG, 8, k.address());
            a.set(JAVA_LONG, 16, v.address());
            try {
                bpf(cmd, a, "bpf map read");
            } catch (PerfException e) {
                return false; // ENOENT
            }
            MemorySegment.ofArray(out).copyFrom(v);
            return true;
        }
    }

    /**
     * BPF_PROG_LOAD of a tracepoint program under the GPL (bpf_perf_event_output and
     * bpf_probe_read_user_str are GPL-only). A refusal carries the verifier's last log line; a
     * program naming more maps than the kernel allows is refused before the call
     * (BpfAsm.checkMaps: IllegalArgumentException).
     */
    public int progLoad(long[] insns, String name) {
        return progLoad(PROG_TRACEPOINT, insns, name);
    }

    /** BPF_PROG_LOAD of a program of {@code type} (PROG_TRACEPOINT, PROG_PERF_EVENT), as above. */
    public int progLoad(int type, long[] insns, String name) {
        return progLoad(type, 0, insns, name);
    }

    /**
     * BPF_PROG_LOAD with {@code expectedAttachType} (bpf_attr.expected_attach_type; a uprobe_multi
     * program is PROG_KPROBE expecting TRACE_UPROBE_MULTI), as above.
     */
    public int progLoad(int type, int expectedAttachType, long[] insns, String name) {
        BpfAsm.checkMaps(insns);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment code = arena.allocate(insns.length * 8L, 8);
            for (int i = 0; i < insns.length; i++) code.setAtIndex(JAVA_LONG, i, insns[i]);
            MemorySegment license = arena.allocateFrom("GPL");
            int logSize = 1 << 16;
            MemorySegment log = arena.allocate(logSize);
            MemorySegment a = arena.allocate(128, 8);
            a.set(JAVA_INT, 0, type);
            a.set(JAVA_INT, 4, insns.length);
            a.set(JAVA_LONG, 8, code.address());
            a.set(JAVA_LONG, 16, license.address());
            a.set(JAVA_INT, 24, 1);
            a.set(JAVA_INT, 28, logSize);
            a.set(JAVA_LONG, 32, log.address());
            setName(a, 48, name);
            a.set(JAVA_INT, 68, expectedAttachType);
            try {
                return bpf(BPF_PROG_LOAD, a, "bpf program " + name);
            } catch (PerfException e) {
                String text = log.getString(0).strip();
                String last = text.isEmpty() ? "" : text.substring(text.lastIndexOf('\n') + 1);
                throw new PerfException(e.getMessage() + (last.isEmpty() ? "" : " (verifier: " + last + ")"), e.errno());
            }
        }
    }

    /**
     * BPF_LINK_CREATE of a uprobe_multi link: program {@code progFd} runs at each file offset of
     * {@code path} (with its semaphore's file offset in {@code refCtrOffsets}, 0 for none, or
     * null), its bpf_get_attach_cookie the matching cookie; {@code pid} 0 for every process that
     * maps the file, else that process only. The link's descriptor: the probes go with its last
     * close. {@code onReturn}: uretprobes, run when the function entered at each offset returns.
     * A refusal names the path and the kernel's reason.
     */
    public int uprobeMultiLink(int progFd, String path, long[] offsets, long[] refCtrOffsets, long[] cookies, int pid,
            boolean onReturn) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = arena.allocateFrom(path);
            MemorySegment off = arena.allocate(8L * offsets.length, 8);
            MemorySegment ck = arena.allocate(8L * offsets.length, 8);
            MemorySegment ref = refCtrOffsets == null ? MemorySegment.NULL : arena.allocate(8L * offsets.length, 8);
            for (int i = 0; i < offsets.length; i++) {
                off.setAtIndex(JAVA_LONG, i, offsets[i]);
                ck.setAtIndex(JAVA_LONG, i, cookies[i]);
                if (refCtrOffsets != null) ref.setAtIndex(JAVA_LONG, i, refCtrOffsets[i]);
            }
            // bpf_attr.link_create: prog_fd, target_fd, attach_type, flags, then uprobe_multi's
            // path, offsets, ref_ctr_offsets, cookies, cnt, flags, pid
            MemorySegment a = arena.allocate(64, 8);
            a.set(JAVA_INT, 0, progFd);
            a.set(JAVA_INT, 8, TRACE_UPROBE_MULTI);
            a.set(JAVA_LONG, 16, p.address());
            a.set(JAVA_LONG, 24, off.address());
            a.set(JAVA_LONG, 32, ref.address());
            a.set(JAVA_LONG, 40, ck.address());
            a.set(JAVA_INT, 48, offsets.length);
            a.set(JAVA_INT, 52, onReturn ? 1 : 0); // BPF_F_UPROBE_MULTI_RETURN
            a.set(JAVA_INT, 56, pid);
            return bpf(BPF_LINK_CREATE, a, "uprobe on " + path);
        }
    }

    private static void setName(MemorySegment a, long off, String name) {
        byte[] b = name.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < Math.min(15, b.length); i++) {
            byte c = b[i];
            a.set(JAVA_BYTE, off + i, Character.isLetterOrDigit(c) || c == '_' ? c : (byte) '_');
        }
    }

    /** struct pollfd: {int fd; short events; short revents}, 8 bytes. */
    public static final int POLLFD_SIZE = 8;
    private static final short POLLIN = 1;
    private static final int EFD_CLOEXEC = 02000000, EFD_NONBLOCK = 04000;

    /** Sets entry {@code i} of a pollfd array to wait for {@code fd} to be readable. */
    public static void pollfd(MemorySegment fds, int i, int fd) {
        fds.set(JAVA_INT, (long) i * POLLFD_SIZE, fd);
        fds.set(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 4, POLLIN);
        fds.set(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 6, (short) 0);
    }

    /** Whether the last poll found entry {@code i}'s descriptor readable (its revents). */
    public static boolean readable(MemorySegment fds, int i) {
        return (fds.get(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 6) & POLLIN) != 0;
    }

    /**
     * poll(fds, n, timeoutMs), made as ppoll(fds, n, timeout, no signal mask): the number of
     * ready descriptors, 0 on timeout, -1 when interrupted or failed (the caller simply polls
     * again). A negative {@code timeoutMs} waits without end. {@code st} from {@link #callState}
     * (it holds the timespec too, so that a call allocates nothing).
     */
    public int poll(MemorySegment st, MemorySegment fds, int n, int timeoutMs) {
        long ts = 0; // NULL: no timeout
        if (timeoutMs >= 0) {
            st.set(JAVA_LONG, TIMESPEC, timeoutMs / 1000);
            st.set(JAVA_LONG, TIMESPEC + 8, (timeoutMs % 1000) * 1_000_000L);
            ts = st.address() + TIMESPEC;
        }
        long r = syscall(st, nrPpoll, fds.address(), n, ts, 0L, 0L, 0L);
        Reference.reachabilityFence(fds);
        return (int) r;
    }

    /** A non-blocking eventfd (a counter another thread adds to, to end a poll). */
    public int eventfd() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STATE);
            long fd = syscall(st, nrEventfd2, 0L, EFD_CLOEXEC | EFD_NONBLOCK, 0L, 0L, 0L, 0L);
            if (fd < 0) throw failure("eventfd", st);
            return (int) fd;
        }
    }

    /** Adds 1 to eventfd {@code fd} (wakes its poller); {@code buf} 8 bytes. */
    public void signal(MemorySegment st, MemorySegment buf, int fd) {
        buf.set(JAVA_LONG, 0, 1L);
        syscall(st, nrWrite, fd, buf.address(), 8L, 0L, 0L, 0L);
        Reference.reachabilityFence(buf);
    }

    /** Resets eventfd {@code fd} to 0 (a non-blocking read); {@code buf} 8 bytes. */
    public void consume(MemorySegment st, MemorySegment buf, int fd) {
        syscall(st, nrRead, fd, buf.address(), 8L, 0L, 0L, 0L);
        Reference.reachabilityFence(buf);
    }

    /** Linux's SIGSTOP (the same number on every architecture this bundle runs on). */
    public static final int SIGSTOP = 19;

    /**
     * Room for the errno a call captures (and poll's timespec): one per calling thread, made by
     * {@link #callState}.
     */
    public static MemorySegment callState() {
        return Arena.ofAuto().allocate(TIMESPEC + 16, Math.max(8, STATE.byteAlignment()));
    }

    /**
     * tgkill(pid, tid, sig): 0, or the errno ({@code st} from {@link #callState}, so that a call
     * allocates nothing). The signal goes to one thread of one process, so a pid reused since the
     * event is not signalled unless its thread id matches as well.
     */
    public int tgkill(MemorySegment st, int pid, int tid, int sig) {
        long r = syscall(st, nrTgkill, pid, tid, sig, 0L, 0L, 0L);
        return r == 0 ? 0 : (int) ERRNO_VH.get(st, 0L);
    }

    /** Effective uid 0, from /proc/self/status ("Uid: real effective saved fs"): no downcall. */
    public static boolean root() {
        try {
            var status = org.jdtrace.proc.Procfs.status(org.jdtrace.proc.Procfs.self());
            return status.get("Uid") != null && status.uid(1) == 0;
        } catch (Exception e) {
            // not Linux's /proc: not root as far as we can tell
        }
        return false;
    }

    public static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) Strerror.STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static PerfException failure(String call, MemorySegment st) {
        int errno = (int) ERRNO_VH.get(st, 0L);
        return new PerfException(call + " failed: " + strerror(errno), errno);
    }
}
