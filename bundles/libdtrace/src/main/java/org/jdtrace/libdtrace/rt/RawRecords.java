/*
 * RawRecords: the raw form of records in a principal buffer and of the record under construction
 * (DThread): long words and object references in two arrays, so that a firing that records
 * trace() or printf() data writes words and references into arrays it already has and allocates
 * nothing, as dtrace_probe writes a record's bytes into its CPU's buffer. The consumer turns them
 * into Record and Datum objects when it drains (decode), off the firing path.
 *
 * A record in a buffer: words epid, cpu, timestamp, seq, datum count, then its data. A datum is a
 * tag word and its payload:
 *   OBJ     reference: a Datum made by the action (the actions with no raw form)
 *   INT     words: value, width << 1 | signed                          (trace() of an integer)
 *   STR     word: strsize; reference: the String                       (trace() of a string)
 *   PRINTF  words: nargs, bytes; references: the RecordFormat, the widths (int[]); then nargs
 *           arguments, each ARG_LONG (word: value) or ARG_STR (reference: the String)
 *
 * Pure functions over the arrays; not thread-safe by themselves (the buffer's monitor guards its
 * arrays, a DThread's belong to its thread).
 */
package org.jdtrace.libdtrace.rt;

final class RawRecords {

    static final long OBJ = 0, INT = 1, STR = 2, PRINTF = 3, ARG_LONG = 4, ARG_STR = 5;

    /** Words of a record's header in a buffer (before its data). */
    static final int HEADER_WORDS = 5;

    private RawRecords() {}

    /** Where decoding stands: the next word and the next reference. */
    static final class Cursor {
        int w;
        int r;

        Cursor(int w, int r) {
            this.w = w;
            this.r = r;
        }
    }

    /** The {@code n} data from words[w..] and refs[r..]. */
    static Datum[] decode(long[] words, int w, Object[] refs, int r, int n) {
        return decode(words, refs, new Cursor(w, r), n);
    }

    static Datum[] decode(long[] words, Object[] refs, Cursor at, int n) {
        Datum[] out = new Datum[n];
        for (int i = 0; i < n; i++) {
            long tag = words[at.w++];
            if (tag == OBJ) {
                out[i] = (Datum) refs[at.r++];
            } else if (tag == INT) {
                long v = words[at.w++];
                long ws = words[at.w++];
                out[i] = new Datum.TraceInt(v, (int) (ws >>> 1), (ws & 1) != 0);
            } else if (tag == STR) {
                int strsize = (int) words[at.w++];
                out[i] = new Datum.TraceStr((String) refs[at.r++], strsize);
            } else if (tag == PRINTF) {
                int nargs = (int) words[at.w++];
                int bytes = (int) words[at.w++];
                RecordFormat f = (RecordFormat) refs[at.r++];
                int[] widths = (int[]) refs[at.r++];
                Object[] args = new Object[nargs];
                for (int k = 0; k < nargs; k++) {
                    long t = words[at.w++];
                    assert t == ARG_LONG || t == ARG_STR : "printf argument tag " + t;
                    args[k] = t == ARG_LONG ? (Object) words[at.w++] : refs[at.r++];
                }
                out[i] = new Datum.Printf(f, args, widths, bytes);
            } else {
                throw new IllegalStateException("raw record tag " + tag);
            }
        }
        return out;
    }
}
