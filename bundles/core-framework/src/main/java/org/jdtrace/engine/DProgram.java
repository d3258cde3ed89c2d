package org.jdtrace.engine;

import java.util.List;
import java.util.Map;
import org.jdtrace.consumer.Program;

/** A compiled D program: statements in source order and the options its pragmas set. */
@org.osgi.annotation.versioning.ProviderType
public interface DProgram extends Program {

    List<Statement> statements();

    /** #pragma D option name=value, in order. */
    Map<String, String> pragmas();
}
