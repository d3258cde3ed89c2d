package org.jdtrace.libdtrace.rt;

/**
 * One data-recording action's record in a principal buffer (a dtrace_recdesc_t and its bytes),
 * kept as a Java value; {@link #size} is the bytes it would take in DTrace's buffer, which is
 * what bufsize bounds.
 */
public sealed interface Datum {

    int size();

    /** trace() of an integer of {@code width} bytes, signed or not. */
    record TraceInt(long value, int width, boolean signed) implements Datum {
        public int size() { return width; }
    }

    /** trace() of a string; strsize bytes and the NUL in the buffer. */
    record TraceStr(String value, int strsize) implements Datum {
        public int size() { return strsize + 1; }
    }

    /** printf(): the format and its argument values (Long or String) and their widths. */
    record Printf(RecordFormat format, Object[] args, int[] widths, int bytes) implements Datum {
        public int size() { return bytes; }
    }

    /** system(): the command, formatted as printf() formats, run by the consumer. */
    record System(RecordFormat format, Object[] args, int[] widths, int bytes) implements Datum {
        public int size() { return bytes; }
    }

    /** freopen(): output goes to the file named by the formatted text ("" : back to stdout). */
    record Freopen(RecordFormat format, Object[] args, int[] widths, int bytes) implements Datum {
        public int size() { return bytes; }
    }

    /** printa(): an optional format and the aggregations it prints. */
    record Printa(RecordFormat format, Aggregation[] aggs) implements Datum {
        public int size() { return 4 * aggs.length; }
    }

    /** clear(@a). */
    record Clear(Aggregation agg) implements Datum {
        public int size() { return 4; }
    }

    /** trunc(@a) (keep &lt; 0: remove all) or trunc(@a, n). */
    record Trunc(Aggregation agg, long keep, boolean all) implements Datum {
        public int size() { return 12; }
    }

    /** normalize(@a, normal), and denormalize(@a) as normal 1. */
    record Normalize(Aggregation agg, long normal) implements Datum {
        public int size() { return 12; }
    }

    /** setopt(name[, value]): applied when the consumer reaches the record. */
    record Setopt(String name, String value) implements Datum {
        public int size() { return 8; }
    }

    /** ustack(): the frames, innermost first, already symbolised; {@code depth} pcs in the buffer. */
    record Stack(String[] frames, int depth) implements Datum {
        public int size() { return 8 * (depth + 1); }
    }

    /** tracemem(addr, size[, dsize]): the bytes shown (dsize of them when 0 &lt;= dsize &lt; size); size in the buffer. */
    record TraceMem(byte[] bytes, int recorded) implements Datum {
        public int size() { return recorded; }
    }

    /**
     * print(addr): the address, the bytes of the type there, and its layout's number
     * (DState.printLayout); {@code object}: print() of a value (no address), in illumos' form.
     */
    record Print(long addr, byte[] bytes, int layout, boolean object) implements Datum {
        public int size() { return (object ? 0 : 8) + bytes.length; }
    }

    /** exit(status). */
    record Exit(int status) implements Datum {
        public int size() { return 4; }
    }

    /** The default ERROR report of a fault, printed on stderr when consumed. */
    record Error(int epid, String probeId, String message) implements Datum {
        public int size() { return 0; }
    }
}
