package org.jdtrace.libdtrace;

import java.util.Map;
import org.jdtrace.engine.DSession;
import org.jdtrace.engine.DSessionFactory;
import org.jdtrace.isa.Isa;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The D compiler as a DS component: each session gets its own state and compiles D source with
 * {@link DCompiler} (front end, lowering to Ir, bytecode generation). The ISA service, when one is
 * present, supplies the register names of uregs[] (R_RAX...), as DTrace's per-ISA regs.d does, and
 * reads the calling thread's registers for uregs[] at the probes that fire in it; a session keeps
 * the ISA it was created with.
 */
@Component(service = DSessionFactory.class)
public final class DSessionFactoryImpl implements DSessionFactory {

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Isa isa;

    @Override
    public DSession create() {
        Isa current = isa;
        Map<String, Integer> registers = current == null ? Map.of() : current.abi().uregNames();
        return new DSessionImpl(new DCompiler(registers), current == null ? null : current.abi());
    }
}
