package org.jdtrace.provider.fbt.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which classes and methods fbt makes probes for, on class files shaped as javac and the build's desugarer write them. */
class TraceableTest {

    private static ClassModel model(int classFlags) {
        byte[] b = ClassFile.of().build(ClassDesc.of("p.C"), cb -> {
            cb.withFlags(classFlags);
            for (var m : List.of(
                    new Object[] {"run", ClassFile.ACC_PUBLIC},
                    new Object[] {"lambda$run$0", ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC},
                    new Object[] {"$values", ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC},
                    new Object[] {"$typeSwitch$0", ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC},
                    new Object[] {"access", ClassFile.ACC_STATIC | ClassFile.ACC_BRIDGE | ClassFile.ACC_SYNTHETIC}))
                cb.withMethodBody((String) m[0], ConstantDescs.MTD_void, (Integer) m[1], c -> c.return_());
            cb.withMethodBody("<clinit>", ConstantDescs.MTD_void, ClassFile.ACC_STATIC, c -> c.return_());
        });
        return ClassFile.of().parse(b);
    }

    @Test
    void lambdaBodiesKeepTheirProbesWhatTheCompilerNamedWithDollarDoesNot() {
        List<String> traced = model(ClassFile.ACC_PUBLIC).methods().stream()
                .filter(Rewriter::traceable).map(m -> m.methodName().stringValue()).toList();
        assertEquals(List.of("run", "lambda$run$0"), traced);
    }

    @Test
    void aSyntheticClassHasNoProbesAnOrdinaryOneHas() {
        assertTrue(Rewriter.traceable(model(ClassFile.ACC_PUBLIC)));
        assertFalse(Rewriter.traceable(model(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)));
    }

}
