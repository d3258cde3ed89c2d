package org.jdtrace.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.felix.framework.Felix;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

/** The AOT training run's aid: made only under its property; keeps the class loader of each started bundle. */
class AotTrainingTest {

    @Test
    void onlyTheTrainingRunHasOne() {
        String before = System.getProperty(AotTraining.PROPERTY);
        try {
            System.clearProperty(AotTraining.PROPERTY);
            assertNull(AotTraining.ofRun());
            System.setProperty(AotTraining.PROPERTY, "true");
            assertNotNull(AotTraining.ofRun());
        } finally {
            if (before == null) {
                System.clearProperty(AotTraining.PROPERTY);
            } else {
                System.setProperty(AotTraining.PROPERTY, before);
            }
        }
    }

    @Test
    void keepsTheClassLoaderOfEveryStartedBundle(@TempDir Path dir) throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, dir.resolve("storage").toString());
        Felix felix = new Felix(config);
        felix.init();
        try {
            felix.start();
            Bundle a = felix.getBundleContext().installBundle("reference:" + SystemPackagesTest.bundle(dir, "a", null, null).toUri());
            Bundle b = felix.getBundleContext().installBundle("reference:" + SystemPackagesTest.bundle(dir, "b", null, null).toUri());
            a.start();
            b.start();
            System.setProperty(AotTraining.PROPERTY, "true");
            AotTraining training = AotTraining.ofRun();
            System.clearProperty(AotTraining.PROPERTY);
            training.keep(List.of(a, b, a));
            assertEquals(2, training.kept(), "one class loader a bundle");
            assertEquals(0, training.link(), "no class of theirs fails to link (no agent in tests: nothing to link)");
        } finally {
            felix.stop();
            felix.waitForStop(10_000);
        }
    }
}
