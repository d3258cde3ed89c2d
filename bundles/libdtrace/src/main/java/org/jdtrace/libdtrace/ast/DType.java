package org.jdtrace.libdtrace.ast;

/**
 * The type of a D value as the type checker computes it (a small ctf_id_t). Integers carry their
 * D name (what error messages print: {@code int}, {@code uint64_t}, {@code char}), their size in
 * bytes and signedness; C's promotions work on size and sign only. Immutable; compare with
 * {@link #sameAs} (names differ between {@code uint64_t} and {@code unsigned long long}).
 */
public sealed interface DType {

    /** The name dtrace prints for this type. */
    String name();

    /**
     * The name as ctf_type_name gives it: an anonymous struct or union (named {@code (anonN)}
     * here, one name per body) is {@code struct } with nothing after the space.
     */
    default String ctfName() {
        return name().replaceAll("\\(anon[#0-9]*\\)", "");
    }

    /** Size in bytes (a string's is the strsize option, known at code generation: 0 here). */
    int size();

    record Int(String name, int size, boolean signed) implements DType {}

    /** {@code float}, {@code double}, {@code long double}: declarable, not computable in D. */
    record Float(String name, int size) implements DType {}

    /** D's {@code string}: a NUL-terminated byte string of at most strsize bytes. */
    record Str() implements DType {
        public String name() { return "string"; }
        public int size() { return 0; }
    }

    record Void() implements DType {
        public String name() { return "void"; }
        public int size() { return 0; }
    }

    /** A pointer; {@code name} is the written form, e.g. {@code char *}. */
    record Ptr(DType target) implements DType {
        public String name() {
            return target.name() + (target instanceof Ptr ? "*" : " *");
        }
        public int size() { return 8; }
    }

    /** A fixed-size array {@code T[n]} (n may be 0 when unknown). */
    record Array(DType element, int length) implements DType {
        public String name() { return element.name() + " [" + (length > 0 ? length : "") + "]"; }
        public int size() { return element.size() * length; }
    }

    /** A struct/union/enum known by name only (members are not modelled yet). */
    record Tagged(String name, int size) implements DType {}

    /**
     * A member of a struct or union: its byte offset, and for a bit-field its first bit (counted
     * from the least significant bit of the little-endian storage at {@code offset}) and width;
     * {@code size}: the bytes laid out for it (a string member's are strsize's, see Sou.layOut).
     */
    record Member(String name, DType type, int offset, int bitOffset, int bits, int size) {
        public boolean isBitfield() { return bits > 0; }
    }

    /**
     * A struct or union (ctf's CTF_K_STRUCT/CTF_K_UNION), laid out as libctf lays out the members
     * D declares (see {@link #layOut}). A forward declaration ({@code struct foo;} or a pointer to
     * an unknown tag) has no members until its body is given ({@link #layOut}): the one
     * mutation, made once, by the type checker's thread.
     */
    final class Sou implements DType {
        private final String name;
        private final boolean union;
        private java.util.List<Member> members;
        private int size;
        private int align = 1;

        public Sou(String name, boolean union) {
            this.name = name;
            this.union = union;
        }

        public String name() { return name; }
        public int size() { return size; }
        public int align() { return align; }
        public boolean isUnion() { return union; }
        public boolean isComplete() { return members != null; }
        public java.util.List<Member> members() { return members == null ? java.util.List.of() : members; }

        /**
         * The member named {@code n}: one of this type's own, or one of an anonymous struct or
         * union member's (C11's anonymous members, as libctf's ctf_member_info finds them), at
         * its offset in this type.
         */
        public Member member(String n) {
            for (Member m : members()) {
                if (n.equals(m.name())) return m;
            }
            for (Member m : members()) {
                if (m.name() == null && m.type() instanceof Sou inner && inner.member(n) instanceof Member im) {
                    return new Member(im.name(), im.type(), m.offset() + im.offset(), im.bitOffset(), im.bits(), im.size());
                }
            }
            return null;
        }

        /**
         * Gives the body, laid out as DTrace's compiler lays out a declaration: dt_decl_member
         * adds each member with libctf's ctf_add_member, which places it at "natural" alignment
         * (ctf_add_member_offset): the end of the previous member (its offset plus its encoding's
         * bits, or its size in bits) rounded up to a byte, then to the new member's alignment;
         * the struct's size is the last member's end, with no tail padding; a union's members all
         * at 0, its size the largest. A bit-field is a member of its own integer type of that
         * many bits, whose size (and alignment) is the power of two of bytes that holds them
         * (ctf_add_encoded); it starts on a byte, bit 0 of its storage. A struct's alignment is
         * its first member's, a union's its largest member's (ctf_type_align). So
         * {@code struct { int a; char b; }} is 5 bytes and {@code struct { int a : 1; int b : 3; }}
         * 2, as DTrace reports them (the DTrace guide leaves bit-field layout to the compiler).
         * Members are (name, type, bit-field width or 0; an unnamed bit-field takes space).
         */
        public void layOut(java.util.List<String> names, java.util.List<DType> ts, java.util.List<Integer> widths) {
            layOut(names, ts, widths, 0);
        }

        /**
         * As above; a {@code string} member takes {@code stringSize} bytes (alignment 1), the
         * char[strsize] DTrace's string typedef stands for.
         */
        public void layOut(java.util.List<String> names, java.util.List<DType> ts, java.util.List<Integer> widths,
                int stringSize) {
            if (members != null) throw new IllegalStateException(name + " already complete");
            java.util.List<Member> out = new java.util.ArrayList<>();
            long end = 0; // bits: the previous member's offset plus its bits
            long sz = 0;
            int al = 1;
            for (int i = 0; i < names.size(); i++) {
                DType t = ts.get(i);
                int w = widths.get(i);
                int msize = w > 0 ? bitfieldBytes(w) : t.isString() ? stringSize : t.size();
                int malign = w > 0 ? msize : t.isString() ? 1 : Math.max(1, t.align());
                long off = 0;
                if (union) {
                    sz = Math.max(sz, msize);
                    al = Math.max(al, malign);
                } else {
                    if (i > 0) {
                        off = (end + 7) / 8;
                        off = (off + malign - 1) / malign * malign;
                    } else {
                        al = malign;
                    }
                    sz = off + msize;
                    end = off * 8 + (w > 0 ? w : msize * 8L);
                }
                out.add(new Member(names.get(i), t, (int) off, 0, w, msize));
            }
            // an unnamed bit-field only takes space; an anonymous struct or union stays, its
            // members found through it (member)
            out.removeIf(m -> m.name() == null && !(m.type() instanceof Sou));
            members = java.util.List.copyOf(out);
            size = (int) sz;
            align = al;
        }

        /** The bytes of a bit-field's own integer type: ctf_add_encoded's clp2(roundup(bits, 8) / 8). */
        private static int bitfieldBytes(int bits) {
            int bytes = (bits + 7) / 8;
            return Integer.highestOneBit(bytes) == bytes ? bytes : Integer.highestOneBit(bytes) << 1;
        }

        @Override
        public String toString() { return name; }
    }

    /** The type of an aggregation reference ({@code @a} as printa's argument). */
    record Agg() implements DType {
        public String name() { return "aggregation"; }
        public int size() { return 0; }
    }

    /**
     * The type of stack(), ustack() and jstack() where they yield a value: only as an
     * aggregation key (printa's %k takes it), as in DTrace.
     */
    record Stack() implements DType {
        public String name() { return "stack"; }
        public int size() { return 0; }
    }

    // ---- the C integer types D knows (LP64) -------------------------------------------------
    Int CHAR = new Int("char", 1, true);
    Int UCHAR = new Int("unsigned char", 1, false);
    Int SHORT = new Int("short", 2, true);
    Int USHORT = new Int("unsigned short", 2, false);
    Int INT = new Int("int", 4, true);
    Int UINT = new Int("unsigned int", 4, false);
    Int LONG = new Int("long", 8, true);
    Int ULONG = new Int("unsigned long", 8, false);
    Int LLONG = new Int("long long", 8, true);
    Int ULLONG = new Int("unsigned long long", 8, false);
    Int INT64 = new Int("int64_t", 8, true);
    Int UINT64 = new Int("uint64_t", 8, false);
    Str STRING = new Str();
    Void VOID = new Void();
    Agg AGG = new Agg();
    Stack STACK = new Stack();

    default boolean isInteger() { return this instanceof Int; }

    default boolean isString() { return this instanceof Str; }

    default boolean isPointer() { return this instanceof Ptr; }

    /** A struct or union (complete or not). */
    default boolean isSou() { return this instanceof Sou; }

    /** C's alignment of a value of this type on LP64. */
    default int align() {
        return switch (this) {
            case Sou s -> s.align();
            case Array a -> a.element().align();
            case Int i -> Math.max(1, i.size());
            case Float f -> Math.max(1, f.size());
            case Ptr p -> 8;
            default -> 1;
        };
    }

    /** Arithmetic (integer) or pointer: what C calls a scalar (D_OP_SCALAR). */
    default boolean isScalar() { return this instanceof Int || this instanceof Ptr; }

    /** A {@code char *} or {@code char []}: acceptable where a string is. */
    default boolean isCharArrayOrPointer() {
        return (this instanceof Ptr p && p.target() instanceof Int i && i.size() == 1) || isCharArray();
    }

    /**
     * An array of (signed) char, which D treats as a string; an array of unsigned bytes
     * (uint8_t, __u8) is an object in memory like any other array, as libdtrace's IS_CHAR test
     * (CTF_INT_CHAR and CTF_INT_SIGNED, 8 bits) has it.
     */
    default boolean isCharArray() {
        return this instanceof Array a && a.element() instanceof Int j && j.size() == 1 && j.signed();
    }

    /** Same representation: same kind, size and signedness (names may differ). */
    default boolean sameAs(DType o) {
        if (this instanceof Int a && o instanceof Int b) {
            return a.size() == b.size() && a.signed() == b.signed();
        }
        if (this instanceof Ptr a && o instanceof Ptr b) {
            return a.target().sameAs(b.target()) || a.target() instanceof Void || b.target() instanceof Void;
        }
        if (this instanceof Sou || o instanceof Sou) {
            return this == o;
        }
        if (this instanceof Array a && o instanceof Array b) {
            return a.length() == b.length() && a.element().sameAs(b.element());
        }
        return getClass() == o.getClass() && name().equals(o.name());
    }
}
