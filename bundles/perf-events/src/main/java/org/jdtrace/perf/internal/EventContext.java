package org.jdtrace.perf.internal;

import java.lang.foreign.ValueLayout;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.PerfEvents;

/**
 * A tracepoint firing's context: SampleContext's, with what the CaptureProgram recorded at the
 * event (captured(): the process's name, parent, time on CPU, credentials and psargs, which
 * execname, ppid, vtimestamp and curpsinfo give, right for a process gone or exec'd since), the
 * args the provider read from the record, a string argument ({@code args[0]} of proc:::exec),
 * and, for probes that fire in another thread's name (sched:::on-cpu names the thread coming on
 * CPU), that thread's pid, tid, execname and time on CPU; the members recorded of the current
 * task are then not that thread's and come from /proc. reset() before each firing; drain thread
 * only; the record is read only during the firing.
 */
final class EventContext extends SampleContext {

    private final Comms comms;
    int pid = -1, tid = -1;
    /** The ppid a CaptureProgram read at the event (0: not captured, read from /proc). */
    long ppid;
    String execname;
    final Object[] objects = new Object[10];

    EventContext(PerfEvents perf, Comms comms, UserSymbols symbols, Abi abi) {
        super(perf, comms, symbols, abi);
        this.comms = comms;
    }

    /** The capture's record (valid during the firing), and whether it holds the task's BTF-read members. */
    private java.lang.foreign.MemorySegment record;
    private boolean taskKnown;
    /** The time on CPU of the thread the firing is in the name of (as()), 0 if unknown. */
    long asRuntime;

    /** The firing reads {@code rec}, a CaptureProgram record (see there for the layout). */
    void captured(java.lang.foreign.MemorySegment rec, boolean taskKnown) {
        this.record = rec;
        this.taskKnown = taskKnown;
        long pidTgid = rec.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        int p = (int) (pidTgid >>> 32), t = (int) pidTgid;
        ppid = rec.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.PPID);
        // execname is the process's name: its main thread's comm (what the event saw for it)
        String comm = TracepointProvider.cstring(rec, CaptureProgram.COMM, 16);
        execname = p == t ? comm : comms.known(p, comm);
    }

    /**
     * The user registers and stack the capture copied at the event (its user stack section, while a
     * probe walks the user stack), the current task's: none for a firing in another thread's name
     * (as(): sched:::on-cpu), whose stack was not copied; else the sample's call chain.
     */
    @Override
    protected long userState(long[] dwarf, org.jdtrace.unwind.StackSnapshot snapshot) {
        if (tid >= 0 || record == null) return 0;
        return sectionState(record, CaptureProgram.SIZE, dwarf, snapshot);
    }

    /** The time on CPU at the event: the current task's, or that of the thread the firing names (as()). */
    @Override
    public long vtimestamp() {
        long v = tid >= 0 ? asRuntime : record == null ? 0 : record.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.RUNTIME);
        return v != 0 ? v : super.vtimestamp();
    }

    @Override
    public long psinfo(String member) {
        if (record == null || tid >= 0) return Long.MIN_VALUE;
        long ids = record.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.UID_GID);
        return switch (member) {
            case "pr_uid" -> ids & 0xffffffffL;
            case "pr_gid" -> ids >>> 32;
            case "pr_euid" -> taskKnown ? Integer.toUnsignedLong(record.get(ValueLayout.JAVA_INT_UNALIGNED, CaptureProgram.EUID)) : Long.MIN_VALUE;
            case "pr_egid" -> taskKnown ? Integer.toUnsignedLong(record.get(ValueLayout.JAVA_INT_UNALIGNED, CaptureProgram.EGID)) : Long.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
    }

    /**
     * pr_psargs as the event saw it: the argument strings joined by blanks, at most 79 bytes (as
     * procfs's PRARGSZ leaves with its NUL); null where the capture read none (a sched probe, a
     * kernel thread, no BTF): /proc then.
     */
    @Override
    public String psinfoString(String member) {
        if (record == null || tid >= 0 || !member.equals("pr_psargs")) return null;
        int len = (int) Math.min(CaptureProgram.PSARGS_SIZE, record.get(ValueLayout.JAVA_LONG_UNALIGNED, CaptureProgram.PSARGS_LEN));
        if (len <= 0) return null;
        byte[] b = new byte[len];
        java.lang.foreign.MemorySegment.copy(record, ValueLayout.JAVA_BYTE, CaptureProgram.PSARGS, b, 0, len);
        int n = len;
        while (n > 0 && b[n - 1] == 0) n--;
        for (int i = 0; i < n; i++) if (b[i] == 0) b[i] = ' ';
        return new String(b, 0, Math.min(n, 79), java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** A string captured in the kernel at the event and the user address it was read from. */
    private long capturedAddr;
    private String captured;

    void captured(long addr, String s) {
        capturedAddr = addr;
        captured = s;
    }

    @Override
    public String copyinstr(long addr, int max) throws org.jdtrace.spi.FaultException {
        if (captured != null && addr == capturedAddr) return captured.length() > max ? captured.substring(0, max) : captured;
        return super.copyinstr(addr, max);
    }

    /**
     * What the provider recorded at the event of the process or thread a psinfo_t * or lwpsinfo_t *
     * argument names (args[i]->pr_ppid, ->pr_fname / ->pr_name); MIN_VALUE / null: not recorded.
     */
    private final long[] argPpid = {Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE};
    private final String[] argName = new String[3];

    void argInfo(int i, long ppid, String name) {
        argPpid[i] = ppid;
        argName[i] = name;
    }

    @Override
    public long argInfo(int i, String member) {
        return i >= 0 && i < argPpid.length && member.equals("pr_ppid") ? argPpid[i] : Long.MIN_VALUE;
    }

    @Override
    public String argInfoString(int i, String member) {
        if (i < 0 || i >= argName.length || argName[i] == null) return null;
        if (!member.equals("pr_fname") && !member.equals("pr_name")) return null;
        return argName[i].length() > 15 ? argName[i].substring(0, 15) : argName[i];
    }

    void reset() {
        java.util.Arrays.fill(argPpid, Long.MIN_VALUE);
        java.util.Arrays.fill(argName, null);
        captured = null;
        record = null;
        asRuntime = 0;
        ppid = 0;
        pid = -1;
        tid = -1;
        execname = null;
        java.util.Arrays.fill(objects, null);
    }

    /** The firing is in thread {@code t}'s name (its process from /proc, its comm as given or cached). */
    void as(int t, String comm) {
        tid = t;
        pid = comms.tgid(t);
        execname = comm;
    }

    void arg(int i, long v) {
        args[i] = v;
    }

    void arg(int i, String s) {
        objects[i] = s;
    }

    @Override
    public Object argObject(int i) {
        return i >= 0 && i < objects.length && objects[i] != null ? objects[i] : arg(i);
    }

    @Override
    public long pid() {
        return pid >= 0 ? pid : super.pid();
    }

    @Override
    public long ppid() {
        return ppid != 0 && pid < 0 ? ppid : super.ppid();
    }

    @Override
    public long tid() {
        return tid >= 0 ? tid : super.tid();
    }

    @Override
    public String execname() {
        return execname != null ? execname : super.execname();
    }

    @Override
    public long[] ustack(int max) {
        return tid >= 0 ? new long[0] : super.ustack(max);
    }

    @Override
    public long[] stack(int max) {
        return tid >= 0 ? new long[0] : super.stack(max);
    }
}
