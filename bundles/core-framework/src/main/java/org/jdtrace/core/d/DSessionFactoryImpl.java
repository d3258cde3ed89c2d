package org.jdtrace.core.d;

import org.jdtrace.core.engine.DSession;
import org.jdtrace.core.engine.DSessionFactory;
import org.osgi.service.component.annotations.Component;

/**
 * The D compiler as a DS component: each session gets its own state and compiles D source with
 * {@link DCompiler} (front end, lowering to Ir, bytecode generation).
 */
@Component(service = DSessionFactory.class)
public final class DSessionFactoryImpl implements DSessionFactory {

    @Override
    public DSession create() {
        return new DSessionImpl(new DCompiler());
    }
}
