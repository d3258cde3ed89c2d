package org.jdtrace.core.d;

import org.jdtrace.core.engine.DSession;
import org.jdtrace.core.engine.DSessionFactory;
import org.osgi.service.component.annotations.Component;

/**
 * The D compiler as a DS component: each session gets its own state. The front end is wired in
 * here once the D front end (org.jdtrace.core.d.sema) provides its lowering; until then compile()
 * of source text reports that it is unavailable, and clauses are compiled from Ir.
 */
@Component(service = DSessionFactory.class)
public final class DSessionFactoryImpl implements DSessionFactory {

    @Override
    public DSession create() {
        return new DSessionImpl(null);
    }
}
