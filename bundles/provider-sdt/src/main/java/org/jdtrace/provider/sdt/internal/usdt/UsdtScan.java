/*
 * From an object's SystemTap SDT notes to the USDT probes DTrace would show (the work of
 * dtrace's USDT helper and fasttrap's meta provider, dt_pid_create_usdt_probes):
 *
 *   <provider><PID>:<module>:<function>:<name>
 *
 * module: the object's file name (python3.11, libjvm.so); function: the symbol that holds the
 * site (fasttrap's function table of the object, IFUNC-resolved), else the site's address in
 * hex; name: the note's name with each "__" shown as "-" (function__entry is function-entry;
 * the name as written is an alias of the probe). Notes with the same four names are the sites
 * of one probe (a probe expanded at several places of one function).
 *
 * Addresses: a note's pc and semaphore are link-time addresses adjusted by the .stapsdt.base
 * difference (SdtNote.pc(base)) and then by the object's load bias. A semaphore that does not
 * lie inside a writable PT_LOAD segment of the object is refused with one warning line and the
 * probe made without it: it is never written.
 *
 * Types: a note's specs give each argument's size and sign only (args[] as int32_t, uint64_t...).
 * An object built with jdtrace's dtrace -h also has the types the provider definition declared,
 * in notes of its own section .note.jdtrace (one per probe: provider, name, types; see
 * libdtrace's ProviderHeaders); where one names the probe with as many types as it has
 * arguments, args[] has the declared types (char *, int), as with DTrace's -h/-G build. A
 * build with systemtap's sdt.h, or a type list of another length, keeps the sized types.
 *
 * Arguments: each note's specs go through the ISA's Abi (Abi.parseSdtArgument). A spec it
 * cannot read refuses that probe's arguments (the probe fires, args are 0) with one warning
 * line; the other probes keep theirs. Symbols in specs resolve in the object (+ bias).
 */
package org.jdtrace.provider.sdt.internal.usdt;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.jdtrace.elf.ElfException;
import org.jdtrace.elf.ElfFile;
import org.jdtrace.elf.ElfSegment;
import org.jdtrace.elf.ElfSymbol;
import org.jdtrace.elf.SdtNote;
import org.jdtrace.fasttrap.TargetObject;
import org.jdtrace.fasttrap.TracedTarget;
import org.jdtrace.isa.Abi;
import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.SdtArgument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class UsdtScan {

    private static final Logger LOG = LoggerFactory.getLogger(UsdtScan.class);

    /** One probe to create: its four names, the note's name as written, sites, arguments. */
    record Planned(String provider, String module, String function, String name, String noteName,
            List<UsdtProbe.SiteSpec> sites, SdtArgument[] args, List<String> types) {}

    /** The section dtrace -h's macros write the declared argument types to (ProviderHeaders). */
    static final String TYPES_SECTION = ".note.jdtrace";

    private UsdtScan() {}

    /** DTrace's name for a note's probe name: every "__" is "-". */
    static String probeName(String noteName) {
        return noteName.replace("__", "-");
    }

    static List<Planned> plan(TracedTarget t, TargetObject o, Abi abi) {
        ElfFile elf = o.elf();
        List<SdtNote> notes;
        long base;
        List<ElfSegment> segments;
        try {
            notes = elf.sdtNotes();
            if (notes.isEmpty()) return List.of();
            base = elf.stapsdtBase().orElse(0);
            segments = elf.segments();
        } catch (ElfException e) {
            LOG.warn("pid{}: cannot read the SDT notes of {}: {}", t.pid(), o.path(), e.getMessage());
            return List.of();
        }
        String module = o.path().getFileName().toString();
        Map<String, List<String>> declared = declaredTypes(t, elf, module);
        Map<String, Planned> byKey = new LinkedHashMap<>();
        for (SdtNote n : notes) {
            long pc = n.pc(base) + o.bias();
            long sem = n.semaphore(base);
            if (sem != 0) {
                if (!writable(segments, sem)) {
                    LOG.warn("pid{}: {}: semaphore of {}:{} at 0x{} is outside the object's writable segments; refused",
                            t.pid(), module, n.provider(), n.name(), Long.toHexString(sem));
                    sem = 0;
                } else {
                    sem += o.bias();
                    if (sem < o.start() || sem + 2 > o.end()) {
                        LOG.warn("pid{}: {}: semaphore of {}:{} is not mapped; refused", t.pid(), module, n.provider(), n.name());
                        sem = 0;
                    }
                }
            }
            String fn = t.functionAt(o, pc);
            if (fn == null) fn = Long.toHexString(pc - o.bias());
            String provider = n.provider() + t.pid();
            String name = probeName(n.name());
            String key = provider + ":" + fn + ":" + name;
            Planned p = byKey.get(key);
            UsdtProbe.SiteSpec site = new UsdtProbe.SiteSpec(pc, sem);
            if (p == null) {
                SdtArgument[] args = arguments(t, module, n, abi);
                List<String> types = declared.get(n.provider() + "\0" + n.name());
                byKey.put(key, new Planned(provider, module, fn, name, n.name(), new ArrayList<>(List.of(site)),
                        args, args != null && types != null && types.size() == args.length ? types : null));
            } else if (!p.sites().contains(site)) {
                p.sites().add(site);
            }
        }
        return List.copyOf(byKey.values());
    }

    /**
     * The argument types dtrace -h declared, by provider and probe name as written ("\0"
     * between): the notes of {@link #TYPES_SECTION} (owner "jdtrace", type 1; desc: provider,
     * name, each type, NUL-terminated). A section that does not read as such is ignored with
     * one warning: the probes are then typed by size, as without it.
     */
    static Map<String, List<String>> declaredTypes(TracedTarget t, ElfFile elf, String module) {
        Map<String, List<String>> out = new java.util.HashMap<>();
        try {
            for (org.jdtrace.elf.ElfSection s : elf.sections()) {
                if (s.type() != org.jdtrace.elf.ElfSection.SHT_NOTE || !s.name().equals(TYPES_SECTION)) continue;
                java.nio.ByteBuffer b = elf.contents(s);
                while (b.remaining() >= 12) {
                    int namesz = b.getInt();
                    int descsz = b.getInt();
                    int type = b.getInt();
                    if (namesz < 0 || descsz < 0 || align4(namesz) + (long) align4(descsz) > b.remaining()) {
                        throw new IllegalArgumentException("truncated note");
                    }
                    byte[] name = new byte[namesz];
                    b.get(name);
                    b.position(b.position() + align4(namesz) - namesz);
                    byte[] desc = new byte[descsz];
                    b.get(desc);
                    b.position(b.position() + align4(descsz) - descsz);
                    if (type != 1 || !new String(name, java.nio.charset.StandardCharsets.ISO_8859_1).equals("jdtrace\0")) continue;
                    List<String> parts = new ArrayList<>();
                    int from = 0;
                    for (int i = 0; i < desc.length; i++) {
                        if (desc[i] == 0) {
                            parts.add(new String(desc, from, i - from, java.nio.charset.StandardCharsets.UTF_8));
                            from = i + 1;
                        }
                    }
                    if (parts.size() >= 2) {
                        out.putIfAbsent(parts.get(0) + "\0" + parts.get(1), List.copyOf(parts.subList(2, parts.size())));
                    }
                }
            }
        } catch (ElfException | RuntimeException e) {
            LOG.warn("pid{}: {}: declared argument types unreadable, typed by size: {}", t.pid(), module, e.getMessage());
            return Map.of();
        }
        return out;
    }

    private static int align4(int n) {
        return (n + 3) & ~3;
    }

    private static boolean writable(List<ElfSegment> segments, long vaddr) {
        for (ElfSegment s : segments) {
            if (s.type() == ElfSegment.PT_LOAD && (s.flags() & ElfSegment.PF_W) != 0
                    && vaddr >= s.vaddr() && vaddr + 2 <= s.vaddr() + s.memsz()) {
                return true;
            }
        }
        return false;
    }

    /** The note's argument specs, or null (with one warning) when one cannot be read. */
    private static SdtArgument[] arguments(TracedTarget t, String module, SdtNote n, Abi abi) {
        List<String> specs = n.argumentList();
        SdtArgument[] out = new SdtArgument[specs.size()];
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = abi.parseSdtArgument(specs.get(i));
            } catch (IsaException e) {
                LOG.warn("pid{}: {}: {}:{}: arguments refused: {}", t.pid(), module, n.provider(), n.name(), e.getMessage());
                return null;
            }
        }
        return out;
    }

    /** Resolves a symbol named in an argument spec to its process address in {@code o}. */
    static ToLongFunction<String> symbols(TargetObject o) {
        return name -> {
            try {
                ElfSymbol s = o.elf().symbol(name).orElseThrow(() -> new IllegalArgumentException("no symbol " + name));
                return s.value() + o.bias();
            } catch (ElfException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
        };
    }

    /** D's native type for an SDT argument of this size and signedness. */
    static String nativeType(SdtArgument a) {
        int s = a.size();
        return switch (s) {
            case -1 -> "int8_t";
            case 1 -> "uint8_t";
            case -2 -> "int16_t";
            case 2 -> "uint16_t";
            case -4 -> "int32_t";
            case 4 -> "uint32_t";
            case -8 -> "int64_t";
            default -> "uint64_t";
        };
    }
}
