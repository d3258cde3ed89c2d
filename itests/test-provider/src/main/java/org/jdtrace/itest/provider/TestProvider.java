/*
 * The integration tests' provider: one probe, test:itest:loop:fire, fired every millisecond by a
 * thread of this bundle with arg0 = the firing's sequence number. Installing, uninstalling and
 * reinstalling this bundle exercises the framework's provider tracking: probes created on attach,
 * retired when the service goes, the enablings kept and matched again when it comes back.
 */
package org.jdtrace.itest.provider;

import java.util.concurrent.atomic.AtomicLong;
import org.jdtrace.spi.ProbeContext;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeRegistry;
import org.jdtrace.spi.Provider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

@Component(service = Provider.class, property = "provider.name=test")
public final class TestProvider implements Provider {

    private final AtomicLong sequence = new AtomicLong();
    private volatile Probe fire;
    private volatile boolean running = true;
    private Thread firer;

    @Override
    public String name() {
        return "test";
    }

    @Override
    public void attach(ProbeRegistry registry) {
        fire = registry.create("test", "itest", "loop", "fire", null);
    }

    @Activate
    void activate() {
        firer = Thread.ofPlatform().daemon().name("itest-provider-firer").start(this::loop);
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        running = false;
        firer.join(5000);
    }

    private void loop() {
        while (running) {
            Probe p = fire;
            if (p != null && p.isEnabled()) {
                p.fire(new Context(sequence.incrementAndGet()));
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void enable(Probe probe) {}

    @Override
    public void disable(Probe probe) {}

    /** A Java thread's context: arg0 is the sequence number. */
    record Context(long seq) implements ProbeContext {
        @Override
        public long arg(int i) {
            return i == 0 ? seq : 0;
        }

        @Override
        public long pid() {
            return ProcessHandle.current().pid();
        }

        @Override
        public long ppid() {
            return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
        }

        @Override
        public long tid() {
            return Thread.currentThread().threadId();
        }

        @Override
        public String execname() {
            return "java";
        }

        @Override
        public int cpu() {
            return 0;
        }
    }
}
