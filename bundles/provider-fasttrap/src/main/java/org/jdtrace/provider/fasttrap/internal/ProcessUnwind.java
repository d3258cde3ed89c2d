/*
 * ProcessUnwind: what the CFI unwinder (org.jdtrace.unwind.Unwinder) needs to know about one
 * traced process: for a pc, the call-frame information of the object it lies in and that
 * object's load bias. Objects are ProcessState's modules (/proc/PID/maps); each object's
 * CallFrameInfo is read once and kept while the object stays mapped. The vDSO, which no file
 * backs, is read once from the process's memory (its [vdso] mapping) and parsed as an ELF image
 * (ElfFile.of): its own .eh_frame describes __vdso_clock_gettime and friends, and its .dynsym
 * names them (vdsoSymbol).
 *
 * Threading: lookups come from the process's control thread while a thread of it is stopped
 * (probe context); the tables are concurrent maps so the consumer may look too. A pc in no object
 * (JIT code, anonymous memory) gives null: the unwinder walks frame pointers there. Failure to
 * read maps or the vDSO leaves them unknown (no CFI), never an exception.
 */
package org.jdtrace.provider.fasttrap.internal;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.elf.SymbolTable;
import org.jdtrace.provider.fasttrap.internal.sym.MappedObject;
import org.jdtrace.unwind.CallFrameInfo;
import org.jdtrace.unwind.Unwinder;

final class ProcessUnwind implements Unwinder.Modules {

    private final ProcessState state;
    private final Map<MappedObject, CallFrameInfo> tables = new ConcurrentHashMap<>();
    /** The vDSO: {start, end, bias} and its CFI, read at the first pc that is in no file. */
    private volatile long[] vdsoRange;
    private volatile CallFrameInfo vdso;
    private volatile SymbolTable vdsoSymbols;

    ProcessUnwind(ProcessState state) {
        this.state = state;
    }

    /** The object containing {@code pc}, or null. */
    private MappedObject objectAt(long pc) {
        try {
            for (MappedObject o : state.modules()) {
                if (o.contains(pc)) return o;
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    @Override
    public CallFrameInfo cfi(long pc) {
        MappedObject o = objectAt(pc);
        if (o != null) {
            CallFrameInfo c = tables.get(o);
            if (c == null) {
                if (tables.size() > 4096) tables.clear();
                if (o.path() != null) c = state.objects.fact(o.path(), CallFrameInfo.class, CallFrameInfo::of);
                if (c == null) c = CallFrameInfo.of(o.elf());
                tables.put(o, c);
            }
            return c;
        }
        long[] v = vdso();
        return v != null && pc >= v[0] && pc < v[1] ? vdso : null;
    }

    @Override
    public long bias(long pc) {
        MappedObject o = objectAt(pc);
        if (o != null) return o.bias();
        long[] v = vdso();
        return v != null ? v[2] : 0;
    }

    /** A HotSpot JVM's JIT and interpreter frames (HotSpotVm.codeFrame); frame pointers elsewhere. */
    @Override
    public long codeFrame(long pc) {
        if (objectAt(pc) != null) return 0;
        org.jdtrace.proc.HotSpotVm vm = state.jvm();
        return vm == null ? 0 : vm.codeFrame(pc);
    }

    /** True when {@code pc} is in an object that has call-frame information. */
    boolean covers(long pc) {
        CallFrameInfo c = cfi(pc);
        return c != null && !c.isEmpty();
    }

    /** {@code [vdso]`function+0xoff} for a pc in the vDSO, by its own symbols; null elsewhere. */
    String vdsoSymbol(long pc) {
        long[] v = vdso();
        if (v == null || pc < v[0] || pc >= v[1]) return null;
        String named = vdsoSymbols.describe(pc - v[2]);
        return "[vdso]`" + (named != null ? named : "0x" + Long.toHexString(pc - v[0]));
    }

    /** Forgets the tables of objects no longer mapped. */
    void retain(List<MappedObject> mapped) {
        tables.keySet().retainAll(mapped);
    }

    private long[] vdso() {
        long[] v = vdsoRange;
        if (v != null) return v.length == 3 ? v : null;
        synchronized (this) {
            if (vdsoRange != null) return vdsoRange.length == 3 ? vdsoRange : null;
            long[] range = new long[0];
            try {
                for (org.jdtrace.proc.Procfs.Mapping l : org.jdtrace.proc.Procfs.maps(state.pid())) {
                    if (!l.path().equals("[vdso]")) continue;
                    long start = l.start(), end = l.end();
                    if (end - start > (1 << 20)) break;
                    byte[] image = new byte[(int) (end - start)];
                    if (state.process.memory().readSome(start, image, 0, image.length) != image.length) break;
                    ElfFile elf = ElfFile.of("[vdso]", image);
                    long firstLoad = ElfSegment.firstLoadPage(elf.segments());
                    vdso = CallFrameInfo.of(elf);
                    vdsoSymbols = SymbolTable.of(elf);
                    range = new long[] {start, end, start - firstLoad};
                    break;
                }
            } catch (IOException | RuntimeException e) {
                // no vDSO CFI: its frames end the walk
            }
            vdsoRange = range;
            return range.length == 3 ? range : null;
        }
    }
}
