/*
 * FiringLocals: the clause-local (this->) scalars and strtok()'s saved position of the firing a
 * thread is running, kept across the clauses of that firing, as DTrace keeps its clause-local
 * variables and dtms_strtok in the machine state of one probe firing (dtrace_mstate_t): "their
 * values persist across the clauses of one probe firing", and strtok's "internal pointer is only
 * valid within multiple enablings of the same probe".
 *
 * A clause holds its this-> scalars in JVM locals; one that uses them (or strtok) calls enter()
 * first, which loads them from here, and every store to one writes it through to here. The
 * clauses of one firing run one after the other on one thread, with the same context and probe,
 * in the order of their ECBs, which is the order of their epids: so a clause that enters with
 * another context or probe than the last, or with an epid not above the last one's, starts a new
 * firing (contexts alone would not do: a JVM-side context is reused by every firing of its
 * thread). Then the values start again from 0 and "", and strtok has no string.
 *
 * Threading: one instance per DThread, used by that thread only. Probe context: no allocation
 * except when a program with more this-> variables than seen before first runs.
 */
package org.jdtrace.libdtrace.rt;

import java.util.Arrays;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeContext;

public final class FiringLocals {

    /** The firing the values belong to (its context), null before the first. */
    private ProbeContext firing;
    private Probe probe;
    private int epid;
    private long[] longs = new long[0];
    private String[] strings = new String[0];

    /** Start of a clause with this-> variables up to slot {@code slots - 1}: a new firing starts afresh. */
    public static void enter(DThread t, ProbeContext ctx, Probe probe, int epid, int slots) {
        FiringLocals f = t.firingLocals;
        if (f.firing != ctx || f.probe != probe || epid <= f.epid) {
            f.firing = ctx;
            f.probe = probe;
            Arrays.fill(f.longs, 0);
            Arrays.fill(f.strings, "");
            t.strtok = null;
        }
        f.epid = epid;
        if (f.longs.length < slots) {
            int old = f.strings.length;
            f.longs = Arrays.copyOf(f.longs, slots);
            f.strings = Arrays.copyOf(f.strings, slots);
            Arrays.fill(f.strings, old, slots, "");
        }
    }

    public static long getLong(DThread t, int slot) {
        return t.firingLocals.longs[slot];
    }

    public static String getString(DThread t, int slot) {
        return t.firingLocals.strings[slot];
    }

    /** A store to this->v: kept for the firing's later clauses; returns the value. */
    public static long keepLong(long v, DThread t, int slot) {
        t.firingLocals.longs[slot] = v;
        return v;
    }

    public static String keepString(String v, DThread t, int slot) {
        t.firingLocals.strings[slot] = v;
        return v;
    }
}
