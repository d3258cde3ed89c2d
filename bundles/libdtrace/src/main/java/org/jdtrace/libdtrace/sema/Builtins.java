package org.jdtrace.libdtrace.sema;

import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.DFunction;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.print.PrintfFormat;

/**
 * The checks of calls to D's actions and subroutines: each argument against its kind in the
 * built-ins table (DFunction: dt_open.c's _dtrace_globals signatures), and the special checks:
 * printf-family format strings against argument types (dt_printf_validate), printa's aggregation arguments, trace() of void, clear/trunc/normalize on aggregations,
 * quantize/lquantize parameters.
 */
final class Builtins {

    private static String protoName(char kind) {
        return switch (kind) {
            case 's' -> "string";
            case 'i' -> "int";
            case 'p', 'b' -> "uintptr_t";
            case 'v' -> "void *";
            case 'a' -> "aggregation";
            default -> "any";
        };
    }

    private static boolean fits(char kind, DType t) {
        return switch (kind) {
            // void * (NULL) is assignable to char *: a NULL string faults at run time, as in DTrace
            case 's' -> t.isString() || t.isCharArrayOrPointer() || (t instanceof DType.Ptr p && p.target() instanceof DType.Void);
            case 'i' -> t.isInteger();
            case 'p' -> t.isScalar();
            case 'b' -> t.isScalar() || t.isString(); // bcopy's source: an address, or a string's bytes
            case 'v' -> t.isPointer(); // a destination in D's memory
            case 'a' -> t instanceof DType.Agg;
            default -> !(t instanceof DType.Void);
        };
    }

    DType check(Checker ck, Expr.Call c, Map<Expr.Call, PrintfFormat> formats) throws DTraceException {
        DFunction f = c.function;
        switch (f) {
            case PRINTF, SYSTEM, FREOPEN -> {
                formats.put(c, printf(ck, c));
                return DType.VOID;
            }
            case PRINTA -> {
                printa(ck, c, formats);
                return DType.VOID;
            }
            case PRINT -> {
                if (!(ck.type(c.args.get(0)) instanceof DType.Ptr)) {
                    print(ck, c);
                    return DType.VOID;
                }
            }
            case TRACE -> {
                DType t = ck.type(c.args.get(0));
                if (t instanceof DType.Void) {
                    throw new DTraceException("trace( ) may not be applied to a void expression", "D_TRACE_VOID", c.line);
                }
                if (t instanceof DType.Agg) {
                    throw new DTraceException("trace( ) may not be applied to a dynamic expression", "D_TRACE_DYN", c.line);
                }
                return DType.VOID;
            }
            default -> { }
        }
        for (int i = 0; i < c.args.size(); i++) {
            char kind = f.param(i);
            Expr arg = c.args.get(i);
            // an aggregating function is no aggregation: refused as the argument it is (void), not as a call
            DType t = kind == 'a' && arg instanceof Expr.Call ac && DFunction.byName(ac.name) instanceof DFunction af
                    && af.kind == DFunction.Kind.AGGREGATING ? DType.VOID : ck.type(arg);
            // an integer constant 0 is NULL, which a char * takes (the subroutine faults on it)
            boolean nullString = kind == 's' && t.isInteger() && Long.valueOf(0).equals(ConstFold.value(arg));
            // an array that is no string decays to its first element's address where a void * is wanted
            boolean decays = "void *".equals(f.protoName(i)) && t instanceof DType.Array && !t.isCharArray();
            if (!fits(kind, t) && !nullString && !decays) {
                String tag = kind != 'a' ? "D_PROTO_ARG"
                        : f == DFunction.DENORMALIZE ? "D_NORMALIZE_AGGARG" : "D_" + f.dname.toUpperCase() + "_AGGARG";
                String proto = f.protoName(i) != null ? f.protoName(i) : protoName(kind);
                DTraceException e = Checker.protoArg(f.dname + "( )", i + 1, proto, t, c.line);
                throw new DTraceException(e.getMessage(), tag, c.line);
            }
        }
        if (f == DFunction.INET_NTOA6) {
            // inet_ntoa6(struct in6_addr *, [int]): a pointer of another type is refused, and the
            // representation flag must be an integer constant
            DType t = ck.type(c.args.get(0));
            if (t instanceof DType.Ptr p && !(p.target() instanceof DType.Void)
                    && !p.target().name().equals("struct in6_addr") && !p.target().name().equals("in6_addr_t")) {
                throw new DTraceException(Checker.protoArg("inet_ntoa6( )", 1, "struct in6_addr *", t, c.line).getMessage(),
                        "D_PROTO_ARG", c.line);
            }
            if (c.args.size() > 1 && ConstFold.value(c.args.get(1)) == null) {
                throw new DTraceException(Checker.protoArg("inet_ntoa6( )", 2, "integer constant", ck.type(c.args.get(1)),
                        c.line).getMessage(), "D_PROTO_ARG", c.line);
            }
        }
        if (f == DFunction.PRINT) {
            // dt_cg_act_print: the pointed-to type is recorded whole, so it must have a size
            DType target = ((DType.Ptr) ck.type(c.args.get(0))).target();
            if (target.size() == 0) {
                throw new DTraceException("print( ) argument #1 reference has type '" + target.name()
                        + "' with size 0; cannot print( ) it.", "D_PRINT_SIZE", c.line);
            }
            c.printLayout = org.jdtrace.libdtrace.ast.PrintLayout.of(target, ck::enumerators);
        }
        if (f == DFunction.TRACEMEM) {
            Long n = ConstFold.value(c.args.get(1));
            if (n == null || n <= 0) {
                throw new DTraceException("tracemem( ) argument #2 must be a non-zero positive integral constant expression",
                        "D_TRACEMEM_SIZE", c.line);
            }
        }
        return f.result;
    }

    /**
     * print() of a value that is no pointer, as illumos' dt_action_print takes it: any type with a
     * size, recorded whole and shown member by member (print.ObjectPrint). An integer literal
     * keeps DTrace on Linux's answer (its prototype is void *: D_PROTO_ARG), which its test suite
     * checks (a cast gives a constant its type: {@code print((int)1)} prints); a pointer keeps
     * Linux's form (TypeDump).
     */
    private static void print(Checker ck, Expr.Call c) throws DTraceException {
        Expr arg = c.args.get(0);
        DType t = ck.type(arg);
        if (t instanceof DType.Void) {
            throw new DTraceException("print( ) may not be applied to a void expression", "D_PRINT_VOID", c.line);
        }
        if (t instanceof DType.Agg) {
            throw new DTraceException("print( ) may not be applied to an aggregation", "D_PRINT_AGG", c.line);
        }
        if (arg instanceof Expr.IntLit || t instanceof DType.Stack) {
            DTraceException e = Checker.protoArg("print( )", 1, "void *", t, c.line);
            throw new DTraceException(e.getMessage(), "D_PROTO_ARG", c.line);
        }
        if (t.size() == 0 && !t.isString() || t instanceof DType.Float) {
            throw new DTraceException("print( ) applied to void or sizeless type", "D_PRINT_SIZE", c.line);
        }
        c.printLayout = org.jdtrace.libdtrace.ast.PrintLayout.of(t, ck::enumerators);
    }

    private PrintfFormat printf(Checker ck, Expr.Call c) throws DTraceException {
        String fn = c.function.dname + "( )";
        Expr first = c.args.get(0);
        DType ft = ck.type(first);
        if (!ft.isString() && !ft.isCharArrayOrPointer()) {
            throw new DTraceException(fn + " argument #1 is incompatible with prototype:\n\tprototype: string\n\t argument: "
                    + ft.name(), "D_PROTO_ARG", c.line);
        }
        if (!(first instanceof Expr.StrLit fmtLit)) {
            throw new DTraceException(fn + " argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: "
                    + ft.name(), "D_PRINTF_ARG_FMT", c.line);
        }
        if (fmtLit.value.isEmpty() && c.function == DFunction.PRINTF) {
            throw new DTraceException(fn + " format string is empty", "D_PRINTF_FMT_EMPTY", c.line);
        }
        List<Expr> args = c.args.subList(1, c.args.size());
        for (Expr a : args) {
            ck.type(a); // the arguments are cooked before the format is read, as in dtrace
        }
        PrintfFormat fmt = PrintfFormat.parse(fmtLit.value, c.line);
        int next = 0;
        for (PrintfFormat.Conversion conv : fmt.conversions()) {
            int convNo = conv.number();
            if (conv.agg()) {
                throw new DTraceException("%@ conversion requires an aggregation and is not for use with printf( )",
                        "D_PRINTF_AGG_CONV", c.line);
            }
            for (String star : new String[] {conv.widthStar() ? "*" : null, conv.precisionStar() ? ".*" : null}) {
                if (star == null) {
                    continue;
                }
                if (next >= args.size()) {
                    throw new DTraceException(fn + " prototype mismatch: conversion #" + convNo + " (" + conv.name()
                            + ") is missing a corresponding \"" + star + "\" argument", "D_PRINTF_DYN_PROTO", c.line);
                }
                DType st = args.get(next).type;
                if (!st.isInteger()) {
                    throw new DTraceException(fn + " argument #" + (next + 2) + " is incompatible with conversion #" + convNo
                            + " prototype:\n\tconversion: % " + star + " " + conv.name().substring(1) + "\n\t prototype: int\n\t  argument: " + st.name(),
                            "D_PRINTF_DYN_TYPE", c.line);
                }
                next++;
            }
            if (next >= args.size()) {
                throw new DTraceException(fn + " prototype mismatch: conversion #" + convNo + " (" + conv.name()
                        + ") is missing a corresponding value argument", "D_PRINTF_ARG_PROTO", c.line);
            }
            checkConversion(fn, conv, "argument #" + (next + 2), args.get(next).type, c.line);
            next++;
        }
        if (next < args.size()) {
            throw new DTraceException(fn + " prototype mismatch: only " + next + " arguments required by this format string",
                    "D_PRINTF_ARG_EXTRA", c.line);
        }
        return fmt;
    }

    /**
     * dt_printf.c's per-conversion argument checks, with its prototype descriptions; {@code what}
     * names the value in the message ("argument #2", "aggregating action").
     */
    static void checkConversion(String fn, PrintfFormat.Conversion conv, String what, DType t, int line)
            throws DTraceException {
        String proto = null;
        switch (conv.conv()) {
            case 'd', 'i', 'o', 'u', 'x', 'X' -> {
                if (!t.isInteger()) {
                    proto = "char, short, int, long, or long long";
                }
            }
            case 'c' -> {
                if (!t.isInteger()) {
                    proto = "char, short, int, long, or long long";
                }
            }
            case 's', 'S' -> {
                if (!(t.isString() || t.isCharArrayOrPointer() || t instanceof DType.Ptr)) {
                    proto = "char [] or string (or use stringof)";
                }
            }
            case 'p', 'a', 'A' -> {
                if (!t.isScalar()) {
                    proto = "pointer or integer";
                }
            }
            case 'k' -> {
                if (!(t instanceof DType.Stack)) {
                    proto = "stack";
                }
            }
            case 'Y', 'T' -> {
                if (!t.isInteger()) {
                    proto = "int64_t";
                }
            }
            case 'e', 'E', 'f', 'g', 'G' -> {
                if (!(t instanceof DType.Float) && !t.isInteger()) {
                    proto = "double";
                }
            }
            default -> { }
        }
        if (proto != null) {
            throw new DTraceException(fn + " " + what + " is incompatible with conversion #" + conv.number()
                    + " prototype:\n\tconversion: " + conv.name() + "\n\t prototype: " + proto + "\n\t  argument: "
                    + t.name(), "D_PRINTF_ARG_TYPE", line);
        }
    }

    private void printa(Checker ck, Expr.Call c, Map<Expr.Call, PrintfFormat> formats) throws DTraceException {
        int firstAgg = 0;
        PrintfFormat fmt = null;
        if (c.args.get(0) instanceof Expr.StrLit s) {
            fmt = PrintfFormat.parse(s.value, c.line);
            formats.put(c, fmt);
            firstAgg = 1;
            ck.type(s);
            if (c.args.size() < 2) {
                throw new DTraceException("printa( ) prototype mismatch: 1 args passed, 2 expected", "D_PRINTA_PROTO", c.line);
            }
        }
        Expr.AggRef first = null;
        for (int i = firstAgg; i < c.args.size(); i++) {
            Expr a = c.args.get(i);
            DType t = ck.type(a);
            if (!(a instanceof Expr.AggRef ar) || ar.keys != null) {
                throw new DTraceException("printa( ) argument #" + (i + 1) + " is incompatible with prototype:\n\tprototype: aggregation\n\t argument: "
                        + t.name(), "D_PRINTA_AGGARG", c.line);
            }
            if (first == null) {
                first = ar;
            } else {
                List<DType> k1 = first.var.keyTypes;
                List<DType> k2 = ar.var.keyTypes;
                if (k1.size() != k2.size()) {
                    throw new DTraceException("printa( ): @" + first.name + " and @" + ar.name
                            + " do not have matching key signatures: @" + first.name + " has " + k1.size() + " "
                            + (k1.size() == 1 ? "key" : "keys") + ", @" + ar.name + " has " + k2.size() + " "
                            + (k2.size() == 1 ? "key" : "keys"), "D_PRINTA_AGGKEY", c.line);
                }
                for (int k = 0; k < k1.size(); k++) {
                    if (k1.get(k).isString() != k2.get(k).isString()
                            || (k1.get(k) instanceof DType.Stack) != (k2.get(k) instanceof DType.Stack)) {
                        // dt_printa_validate: "%9s key #%d: %s" for each aggregation
                        throw new DTraceException("printa( ): @" + ar.name + "[ ] key #" + (k + 1) + " is incompatible with @"
                                + first.name + ":\n" + String.format("%9s key #%d: %s\n%9s key #%d: %s", first.name, k + 1,
                                k1.get(k).name(), ar.name, k + 1, k2.get(k).name()).stripTrailing(),
                                "D_PRINTA_AGGPROTO", c.line);
                    }
                }
            }
        }
        if (fmt != null) {
            // conversions before the first %@ take the keys in order; a %@ takes the aggregating
            // action's value, unsigned for count() and signed for the others (dt_printf_validate)
            DType value = first.var.function == DFunction.COUNT ? DType.UINT64 : DType.INT64;
            int key = 0;
            for (PrintfFormat.Conversion conv : fmt.conversions()) {
                int convNo = conv.number();
                if (conv.agg()) {
                    checkConversion("printa( )", conv, "aggregating action", value, c.line);
                    continue;
                }
                if (key >= first.var.keyTypes.size()) {
                    // the keys are the only arguments of the conversions that are not %@
                    throw new DTraceException("printa( ) prototype mismatch: conversion #" + convNo + " (" + conv.name()
                            + ") is missing a corresponding value argument", "D_PRINTF_ARG_PROTO", c.line);
                }
                checkConversion("printa( )", conv, "argument #2", first.var.keyTypes.get(key), c.line);
                key++;
            }
        }
    }

    /** quantize/lquantize/llquantize parameter checks (constants, ranges). */
    void checkAggregatingArgs(Expr.Call c) throws DTraceException {
        DFunction f = c.function;
        if (f == DFunction.LQUANTIZE) {
            // in dt_cg_agg_lquantize's order: base, limit, their order, then the step
            Long lo = constArg(c, 1, "D_LQUANT_BASETYPE");
            if (lo < Integer.MIN_VALUE || lo > Integer.MAX_VALUE) {
                throw new DTraceException("lquantize( ) argument #2 must be a 32-bit quantity", "D_LQUANT_BASEVAL", c.line);
            }
            Long hi = constArg(c, 2, "D_LQUANT_LIMTYPE");
            if (hi < Integer.MIN_VALUE || hi > Integer.MAX_VALUE) {
                throw new DTraceException("lquantize( ) argument #3 must be a 32-bit quantity", "D_LQUANT_LIMVAL", c.line);
            }
            if (hi <= lo) {
                throw new DTraceException("lquantize( ) argument #3 must be greater than argument #2",
                        "D_LQUANT_MISMATCH", c.line);
            }
            if (c.args.size() > 3) {
                Long step = ConstFold.value(c.args.get(3));
                if (step == null || step <= 0) {
                    throw new DTraceException("lquantize( ) argument #4 must be a non-zero positive integer constant",
                            "D_LQUANT_STEPTYPE", c.line);
                }
                if (step > 0xffff) {
                    throw new DTraceException("lquantize( ) argument #4 must be a 16-bit quantity", "D_LQUANT_STEPVAL", c.line);
                }
            }
        } else if (f == DFunction.LLQUANTIZE) {
            // each parameter has its own tag (DTrace on Linux's, which its suite checks) and is
            // named as illumos' dt_compile_agg names it
            String[] tags = {"D_LLQUANT_FACTORTYPE", "D_LLQUANT_LMAGTYPE", "D_LLQUANT_HMAGTYPE", "D_LLQUANT_STEPTYPE"};
            for (int i = 1; i <= 4; i++) {
                if (ConstFold.value(c.args.get(i)) == null) {
                    throw new DTraceException("llquantize( ) argument #" + i + " (" + DFunction.LLQUANTIZE_PARAMETERS.get(i - 1)
                            + ") must be an integer constant", tags[i - 1], c.line);
                }
            }
        }
    }

    private static Long constArg(Expr.Call c, int i, String tag) throws DTraceException {
        Long v = ConstFold.value(c.args.get(i));
        if (v == null) {
            throw new DTraceException(c.function.dname + "( ) argument #" + (i + 1) + " must be an integer constant",
                    tag, c.line);
        }
        return v;
    }
}
