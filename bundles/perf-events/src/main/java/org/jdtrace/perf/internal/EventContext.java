package org.jdtrace.perf.internal;

import org.jdtrace.isa.Abi;
import org.jdtrace.perf.PerfEvents;

/**
 * A tracepoint firing's context: SampleContext's, with the args the provider read from the raw
 * record, a string argument ({@code args[0]} of proc:::exec-success), and, for probes that fire
 * in another thread's name (sched:::on-cpu names the thread coming on CPU), that thread's pid,
 * tid and execname. reset() before each firing; drain thread only.
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
