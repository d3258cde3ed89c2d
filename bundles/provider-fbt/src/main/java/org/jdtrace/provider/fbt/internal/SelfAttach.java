/*
 * SelfAttach: an Instrumentation for this JVM without any flag on its command line. Writes a
 * one-class agent jar (FbtAgent, Agent-Class with Can-Retransform-Classes) to a temporary file,
 * leaves a receiver in the system properties under a random one-time key, and runs a child JVM
 * (this JVM's own java) that attaches to this process and loads the jar; the agent hands the
 * Instrumentation to the receiver. The jar is deleted, the key removed, the child waited for.
 *
 * Fails (IOException with the reason, for the one line the provider prints) where the JVM is
 * no JDK (no jdk.attach), runs with -XX:-EnableDynamicAgentLoading or -XX:+DisableAttachMechanism,
 * or the child does not finish in time. The JDK prints its own warning about a dynamically
 * loaded agent on this JVM's stderr unless it runs with -XX:+EnableDynamicAgentLoading.
 */
package org.jdtrace.provider.fbt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.jdtrace.provider.fbt.agent.FbtAgent;

final class SelfAttach {

    private SelfAttach() {}

    static Instrumentation attach(long timeoutMs) throws IOException {
        Path jar = Files.createTempFile("jdtrace-fbt-agent", ".jar");
        String key = "org.jdtrace.fbt.agent." + UUID.randomUUID();
        CompletableFuture<Instrumentation> got = new CompletableFuture<>();
        java.util.function.Consumer<Object> receiver = o -> {
            if (o instanceof Instrumentation i) got.complete(i);
        };
        Process child = null;
        Path log = Files.createTempFile("jdtrace-fbt-attach", ".log");
        try {
            writeJar(jar);
            System.getProperties().put(key, receiver);
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            child = new ProcessBuilder(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", jar.toString(),
                    FbtAgent.class.getName(), Long.toString(ProcessHandle.current().pid()), jar.toString(), key)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            child.getOutputStream().close();
            if (!child.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new IOException("the attach helper did not finish in " + timeoutMs + " ms");
            }
            if (child.exitValue() != 0 || !got.isDone()) {
                String why = Files.readString(log).lines().filter(l -> l.contains("Exception") || l.contains("Error"))
                        .findFirst().orElse("exit status " + child.exitValue()).strip();
                throw new IOException("self-attach failed: " + why);
            }
            return got.get(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while attaching");
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("self-attach failed: " + e);
        } finally {
            System.getProperties().remove(key);
            if (child != null && child.isAlive()) child.destroyForcibly();
            Files.deleteIfExists(jar);
            Files.deleteIfExists(log);
        }
    }

    private static void writeJar(Path jar) throws IOException {
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.put(new Attributes.Name("Agent-Class"), FbtAgent.class.getName());
        a.put(new Attributes.Name("Can-Retransform-Classes"), "true");
        String entry = FbtAgent.class.getName().replace('.', '/') + ".class";
        try (InputStream in = FbtAgent.class.getClassLoader().getResourceAsStream(entry);
                OutputStream os = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(os, mf)) {
            if (in == null) throw new IOException("cannot read " + entry + " from provider-fbt");
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
    }
}
