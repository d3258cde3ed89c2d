package org.jdtrace.libdtrace.sema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.jdtrace.consumer.DTraceException;
import org.jdtrace.libdtrace.ast.BuiltinVariable;
import org.jdtrace.libdtrace.ast.DFunction;
import org.junit.jupiter.api.Test;

/**
 * The type checker reads arity, argument kinds and result types from the built-ins table, and
 * words violations as dtrace does (dt_cc.c/dt_parser.c: "prototype mismatch", "argument #N is
 * incompatible with prototype").
 */
class BuiltinsTableTest {

    private static DTraceException error(String body) {
        return assertThrows(DTraceException.class,
                () -> DFrontEnd.check("BEGIN { " + body + " }", "t.d", List.of()));
    }

    @Test
    void tooFewAndTooManyArgumentsAreProtoLen() {
        DTraceException e = error("trace(strtok(\"a\"));");
        assertEquals("D_PROTO_LEN", e.tag());
        assertEquals("strtok( ) prototype mismatch: 1 arg passed, 2 expected", e.getMessage());
        e = error("trace(substr(\"a\", 1, 2, 3));");
        assertEquals("D_PROTO_LEN", e.tag());
        assertEquals("substr( ) prototype mismatch: 4 args passed, at most 3 expected", e.getMessage());
        e = error("trace(index(\"a\"));");
        assertEquals("substr( ) prototype mismatch: 1 arg passed, at least 2 expected".replace("substr", "index"),
                e.getMessage());
    }

    @Test
    void wrongArgumentKindsAreProtoArg() {
        DTraceException e = error("trace(strlen(1));");
        assertEquals("D_PROTO_ARG", e.tag());
        // the prototype named as dt_open.c declares it: strlen(const char *), printed "char *"
        assertEquals("strlen( ) argument #1 is incompatible with prototype:\n\tprototype: char *\n\t argument: int",
                e.getMessage());
        e = error("trace(substr(\"abc\", \"1\"));");
        assertEquals("D_PROTO_ARG", e.tag());
        assertEquals("substr( ) argument #2 is incompatible with prototype:\n\tprototype: int\n\t argument: string",
                e.getMessage());
    }

    @Test
    void prototypesAreDTracesCTypes() throws DTraceException {
        assertEquals("ustack( ) argument #2 is incompatible with prototype:\n\tprototype: uint32_t\n\t argument: string",
                error("ustack(1, \"x\");").getMessage());
        assertEquals("tracemem( ) argument #2 is incompatible with prototype:\n\tprototype: size_t\n\t argument: string",
                error("tracemem(1, \"x\");").getMessage());
        // copyout(void *, uintptr_t, size_t): a string is a void *, the second argument is the first wrong one
        assertEquals("copyout( ) argument #2 is incompatible with prototype:\n\tprototype: uintptr_t\n\t argument: string",
                error("copyout(\"a\", \"b\", 1);").getMessage());
        // an integer constant 0 is NULL, which a const char * takes; any other integer is refused
        DFrontEnd.check("BEGIN { x = strlen(0); y = substr(0, 1); }", "t.d", List.of());
        assertEquals("D_PROTO_ARG", error("trace(strtok(1234, \"a\"));").tag());
        // inet_ntoa6(struct in6_addr *, [int]): another pointer type, or a flag that is no constant, is refused
        assertEquals("D_PROTO_ARG", error("p = (int *) alloca(16); trace(inet_ntoa6(p));").tag());
        assertEquals("D_PROTO_ARG", error("n = 0; trace(inet_ntoa6((struct in6_addr *) alloca(16), n));").tag());
        DFrontEnd.check("BEGIN { trace(inet_ntoa6((struct in6_addr *) alloca(16), 1)); }", "t.d", List.of());
        // print(void *): what it prints is what the pointer points to
        assertEquals("print( ) argument #1 is incompatible with prototype:\n\tprototype: void *\n\t argument: int",
                error("print(1);").getMessage());
    }

    @Test
    void resultTypesComeFromTheTable() throws DTraceException {
        // strlen is a size_t (unsigned 8 bytes), htons a uint16_t: the checker types them from the table
        DFrontEnd.check("BEGIN { x = strlen(\"ab\"); y = htons(1); s = strjoin(\"a\", \"b\"); }", "t.d", List.of());
        assertEquals("size_t", DFunction.STRLEN.result.name());
        assertEquals("uint16_t", DFunction.HTONS.result.name());
        DTraceException e = error("s = strjoin(\"a\", \"b\"); s = 1;");
        assertEquals("D_OP_INCOMPAT", e.tag());
    }

    @Test
    void whatAUserSpaceDTraceCannotHonourIsRefusedByName() {
        DTraceException e = error("trace(mutex_owned(0));");
        assertEquals("D_FUNC_UNDEF", e.tag());
        assertEquals("mutex_owned( ) is not available in a user-space DTrace: it reads kernel mutexes", e.getMessage());
        assertEquals("D_PROTO_LEN", error("trace(mutex_owned());").tag());
        e = error("trace(curthread);");
        assertEquals("D_VAR_UNSUPP", e.tag());
        assertEquals("curthread is not available in a user-space DTrace: it is the kernel's thread structure",
                e.getMessage());
    }

    @Test
    void aBuiltinArrayIsNotAScalar() {
        DTraceException e = error("trace(args);");
        assertEquals("D_IDENT_BADREF", e.tag());
        assertEquals("array 'args' may not be referenced as scalar", e.getMessage());
    }

    @Test
    void eachNameIsDeclaredOnce() {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (DFunction f : DFunction.values()) assertEquals(true, names.add(f.dname), f.dname);
        for (BuiltinVariable b : BuiltinVariable.values()) assertEquals(true, names.add(b.dname()), b.dname());
    }
}
