package org.jdtrace.libdtrace.sema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.DType;
import org.jdtrace.libdtrace.ast.Expr;
import org.jdtrace.libdtrace.ast.IntegerFolding;
import org.jdtrace.libdtrace.ast.Stmt;
import org.junit.jupiter.api.Test;
import org.jdtrace.libdtrace.print.PrintfFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where D's rules differ from C's: dt_type_promote, ++ on a new variable, strings and NULL, printf checks. */
class DtraceTypeRulesTest {

    private static List<String> globalTypes(String src) throws DTraceException {
        return DFrontEnd.check(src, "t.d", List.of()).globals().stream().map(v -> v.type.name()).toList();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // no promotion to int: the higher rank (bits, +1 if unsigned) wins
        "(char)1 + (char)2 | char",
        "(unsigned char)1 + (char)2 | unsigned char",
        "(char)1 + (unsigned char)2 | unsigned char",
        "(short)1 * (unsigned char)2 | short",
        "(unsigned short)1 - (short)2 | unsigned short",
        "(unsigned int)1 + (long long)2 | long long",
        "(unsigned long long)1 + (long long)2 | unsigned long long",
        "(char)1 + 1 | int",
        "-(unsigned char)1 | unsigned char",
        "~(short)1 | short",
        "(char)1 << 2 | int",
        "1 << (unsigned long long)2 | unsigned long long",
        "timestamp ? (char)1 : (unsigned short)2 | unsigned short",
        "(uint)-1 | uint", // the short names of sys/types.h and of Linux's types
        "(__u8)1 + (__be16)2 | __be16",
    })
    void arithmeticFollowsDtTypePromote(String expr, String type) throws DTraceException {
        assertEquals(List.of(type), globalTypes("BEGIN { x = " + expr + "; }"));
    }

    @Test
    void incrementCreatesInt64VariablesACompoundAssignmentReadsItsVariableFirst() throws DTraceException {
        // dt_cook_op1 cooks ++/--'s operand without DT_IDFLG_REF: a new variable, int64_t
        CheckedProgram p = DFrontEnd.check("BEGIN { x++; --y; a[1]++; self->t++; this->l++; z = 1; z += 2; }", "t.d", List.of());
        assertEquals(List.of("int64_t", "int64_t", "int64_t", "int"), p.globals().stream().map(v -> v.type.name()).toList());
        assertEquals(DType.INT64, p.threadLocals().get(0).type);
        assertEquals(DType.INT64, p.clauseLocals().get(0).type);
        // dt_cook_op2 cooks a compound assignment's left with DT_IDFLG_REF: never assigned, D_VAR_UNDEF
        for (String[] c : new String[][] {{"p -= trace(0);", "p"}, {"q += 1;", "q"}, {"self->s |= 1;", "self->s"},
                {"this->u *= 2;", "this->u"}, {"b[1] += 1;", "b"}}) {
            DTraceException e = assertThrows(DTraceException.class,
                    () -> DFrontEnd.check("BEGIN\n{\n\t" + c[0] + "\n}", "t.d", List.of()), c[0]);
            assertEquals("D_VAR_UNDEF", e.tag(), c[0]);
            assertEquals(c[1] + " has not yet been declared or assigned", e.getMessage(), c[0]);
            assertEquals(3, e.line(), c[0]);
        }
    }

    @Test
    void stringVariablesIndexToCharacters() throws DTraceException {
        CheckedProgram p = DFrontEnd.check("BEGIN { s = \"abc\"; c = s[1]; self->t = \"x\"; d = self->t[0]; }", "t.d", List.of());
        assertEquals(List.of("string", "char", "char"), p.globals().stream().map(v -> v.type.name()).toList());
        DTraceException e = assertThrows(DTraceException.class,
                () -> DFrontEnd.check("BEGIN { n = 1; c = n[0]; }", "t.d", List.of()));
        assertEquals("D_ARR_BADREF", e.tag());
    }

    @Test
    void allocaPointersMixOnlyWithNullAndOutsideVariables() throws DTraceException {
        // NULL fits both kinds; pointer arithmetic and &p[i] keep the kind; a mixed ?: may be used, not stored
        DFrontEnd.check("BEGIN { a = (char *) alloca(4); a = NULL; a = a + 1; b = &a[2]; b = (char *) alloca(1);"
                + " trace((a == NULL) ? (char *) 50 : a); c = (char *) 64; c = c + 1; c = NULL; exit(0); }", "t.d", List.of());
    }

    @Test
    void stringsCompareWithAndTakeNull() throws DTraceException {
        assertEquals(List.of("string", "int", "int"),
                globalTypes("BEGIN { s = \"a\"; s = NULL; x = s != NULL; y = NULL == strchr(s, 'z'); }"));
        DTraceException e = assertThrows(DTraceException.class,
                () -> DFrontEnd.check("BEGIN { s = \"a\"; x = s == 1; }", "t.d", List.of()));
        assertEquals("D_OP_INCOMPAT", e.tag());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "BEGIN { x = 1 % 0; } | D_DIV_ZERO | expression contains division by zero",
        "BEGIN { printf(123); } | D_PROTO_ARG | printf( ) argument #1 is incompatible with prototype:~^prototype: string~^ argument: int",
        "BEGIN { printf(\"\"); } | D_PRINTF_FMT_EMPTY | printf( ) format string is empty",
        "BEGIN { printf(\"%?d\\n\", 1, 2); } | D_PRINTF_ARG_EXTRA | printf( ) prototype mismatch: only 1 arguments required by this format string",
        "BEGIN { printf(\"%s %.*d\\n\", \"foo\"); } | D_PRINTF_DYN_PROTO | printf( ) prototype mismatch: conversion #2 (%d) is missing a corresponding \".*\" argument",
        "BEGIN { printf(\"%*lld\\n\"); } | D_PRINTF_DYN_PROTO | printf( ) prototype mismatch: conversion #1 (%lld) is missing a corresponding \"*\" argument",
        "BEGIN { printf(\"%.*d\\n\", \"foo\", 1); } | D_PRINTF_DYN_TYPE | printf( ) argument #2 is incompatible with conversion #1 prototype:~^conversion: % .* d~^ prototype: int~^  argument: string",
        "BEGIN { printf(\"%*d\\n\", \"foo\", 1); } | D_PRINTF_DYN_TYPE | printf( ) argument #2 is incompatible with conversion #1 prototype:~^conversion: % * d~^ prototype: int~^  argument: string",
        "BEGIN { x = 'abcdefghi'; } | D_CHR_OFLOW | character constant is too long",
        // an action used as a value is only typed (void): its own empty format is not what fails
        "BEGIN { printf(\"%d\", printf(\"\")); } | D_PRINTF_ARG_TYPE | printf( ) argument #2 is incompatible with conversion #1 prototype:~^conversion: %d~^ prototype: char, short, int, long, or long long~^  argument: void",
        // a kernel subroutine's arguments are cooked against its prototype before it is refused;
        // an anonymous struct is named as ctf_type_name names it
        "struct { int a; } arg; BEGIN { pcap(arg, 0); } | D_PROTO_ARG | 'pcap( ) argument #1 is incompatible with prototype:~^prototype: void *~^ argument: struct '",
        "BEGIN { pcap(0, \"a\"); } | D_PROTO_ARG | pcap( ) argument #2 is incompatible with prototype:~^prototype: int~^ argument: string",
        "BEGIN { pcap(0, NOSUCH); } | D_FUNC_UNDEF | pcap( ) is not available in a user-space DTrace: it reads kernel socket buffers (struct sk_buff)",
        // += and -= want integers, or a left-hand pointer to an object of known size
        "int p; BEGIN { p = 1; p -= alloca(10); } | D_OP_VFPTR | operator -= requires left-hand scalar operand of known size",
        "BEGIN { p = (void *) alloca(4); p += 1; } | D_OP_VFPTR | operator += requires left-hand scalar operand of known size",
        "BEGIN { p = \"a\"; p += 1; } | D_OP_INCOMPAT | operands have incompatible types: \"string\" += \"int\"",
        // alloca()'d memory stays apart: one variable, one kind of pointer, in every clause
        "BEGIN { a = (char *) alloca(1); a = (a == NULL) ? (char *) 50 : a; } | D_ALLOCA_INCOMPAT | ternary conditional with alloca and non-alloca branches cannot be assigned to a variable",
        "BEGIN { a = (char *) alloca(1); } BEGIN { b = (char *) 64; a = NULL; a = b + 5; } | D_ALLOCA_INCOMPAT | a: cannot reuse the same identifier for both alloca and non-alloca allocations",
        "BEGIN { self->b = (char *) 64; this->a = self->b + 5; } BEGIN { this->a = (char *) alloca(1); } | D_ALLOCA_INCOMPAT | this->a: cannot reuse the same identifier for both alloca and non-alloca allocations",
        // printa's conversions other than %@ take the keys only
        "BEGIN { @ = count(); printa(\"%d\", @); } | D_PRINTF_ARG_PROTO | printa( ) prototype mismatch: conversion #1 (%d) is missing a corresponding value argument",
        "BEGIN { @[1, 2] = count(); printa(\"%d %d %d %@d\", @); } | D_PRINTF_ARG_PROTO | printa( ) prototype mismatch: conversion #3 (%d) is missing a corresponding value argument",
        // a %@ takes the aggregating action's value: uint64_t for count(), int64_t for the others
        "BEGIN { @[1] = count(); printa(\"%d %@s\", @); } | D_PRINTF_ARG_TYPE | printa( ) aggregating action is incompatible with conversion #2 prototype:~^conversion: %s~^ prototype: char [] or string (or use stringof)~^  argument: uint64_t",
        "BEGIN { @ = sum(1); printa(\"%% %@k\", @); } | D_PRINTF_ARG_TYPE | printa( ) aggregating action is incompatible with conversion #2 prototype:~^conversion: %k~^ prototype: stack~^  argument: int64_t",
    })
    void errorsUseDtraceTagsAndWording(String src, String tag, String message) {
        DTraceException e = assertThrows(DTraceException.class, () -> DFrontEnd.check(src, "t.d", List.of()));
        assertEquals(tag, e.tag());
        assertEquals(message.replace("~", "\n").replace("^", "\t"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "'a' | 97 | int",
        "'\\\"\\ba' | 2230369 | int",
        "'\\?' | 23615 | int",
        "'\\'' | 23591 | int",
        "'\\c' | 23651 | int",
        "'\\0103' | 2099 | int",
        "'a\\bcdefgh' | 6991947704341784424 | long",
    })
    void characterConstantsDecodeAsDtraceDoes(String constant, long value, String type) throws DTraceException {
        CheckedProgram p = DFrontEnd.check("BEGIN { x = " + constant + "; }", "t.d", List.of());
        assertEquals(type, p.globals().get(0).type.name());
        Expr.Assign a = (Expr.Assign) ((Stmt.ExprStmt) p.clauses().get(0).body().get(0)).expr();
        assertEquals(value, ConstFold.value(a.value));
    }

    @Test
    void modulusTakesTheSignOfBothOperands() {
        assertEquals(List.of(4L, -4L, -4L, 4L, 0L), List.of(IntegerFolding.modulus(19, 5), IntegerFolding.modulus(19, -5),
                IntegerFolding.modulus(-19, 5), IntegerFolding.modulus(-19, -5), IntegerFolding.modulus(Long.MIN_VALUE, 2)));
        assertEquals(Long.MAX_VALUE, IntegerFolding.modulus(Long.MIN_VALUE + 1, Long.MIN_VALUE));
    }

    @Test
    void pointerWidthConversionIs16Columns() throws DTraceException {
        PrintfFormat.Conversion c = PrintfFormat.parse("%?d", 1).conversions().get(0);
        assertEquals(16, c.width());
        assertEquals("%d", c.name());
    }

    @Test
    void beginAndEndHaveNoArgs() throws DTraceException {
        // dt_idcook_args: BEGIN and END take no arguments, so any args[i] is out of range
        for (String probe : new String[] {"BEGIN", "dtrace:::END", "BEGIN, END"}) {
            DTraceException e = assertThrows(DTraceException.class,
                    () -> DFrontEnd.check(probe + "\n{\n trace(args[0]); }", "t.d", List.of()));
            assertEquals("D_ARGS_IDX", e.tag(), probe);
            assertEquals(3, e.line(), probe);
            assertEquals(true, e.getMessage().startsWith("index 0 is out of range for "), e.getMessage());
        }
        // arg0 stays what it is (0 there), and args[] of other probes is not judged by this rule
        DFrontEnd.check("BEGIN { trace(arg0); } tick-1s { trace(args[0]); }", "t.d", List.of());
    }
}
