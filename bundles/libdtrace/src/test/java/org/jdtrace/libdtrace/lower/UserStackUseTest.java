package org.jdtrace.libdtrace.lower;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.jdtrace.engine.DSession;
import org.jdtrace.libdtrace.DSessionFactoryImpl;
import org.junit.jupiter.api.Test;

/**
 * Statement.userStack: a clause that walks the user stack anywhere (action, key, predicate,
 * nested in an if, through ucaller or ustackdepth) says so; one that only symbolises a value it
 * has, or walks the kernel's stack, does not.
 */
class UserStackUseTest {

    private static boolean userStack(String clause) throws Exception {
        DSession s = new DSessionFactoryImpl().create();
        return s.compile("syscall::read:entry " + clause, "-n", List.of("dtrace")).statements().get(0).userStack();
    }

    @Test
    void ustackJstackUcallerAndUstackdepthWalkTheUserStack() throws Exception {
        assertTrue(userStack("{ ustack(); }"));
        assertTrue(userStack("{ @[ustack(5)] = count(); }"));
        assertTrue(userStack("{ jstack(); }"));
        assertTrue(userStack("{ @[ufunc(ucaller)] = count(); }"));
        assertTrue(userStack("/ustackdepth > 3/ { @ = count(); }"));
        assertTrue(userStack("{ if (arg0 > 1) { @[pid, ustack()] = sum(arg0); } }"));
    }

    @Test
    void otherClausesDoNot() throws Exception {
        assertFalse(userStack("{ @[execname] = count(); }"));
        assertFalse(userStack("{ @[ufunc(arg1)] = count(); }"));
        assertFalse(userStack("{ stack(); }"));
        assertFalse(userStack("{ printf(\"%d\\n\", pid); }"));
    }
}
