package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.TransitionResult;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.spring.boot.Orders.Pay;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import dev.baton.tracing.BatonTracing;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Micrometer and OpenTelemetry are optional: with their classes (and Baton's modules for them) hidden from the
 * application, the starter still gives a working {@code Baton} bean, and neither the meters nor the tracing
 * interceptor is registered. {@code baton-console} is optional too: hidden while {@code baton.console.enabled=true},
 * the starter says at start-up that there is no console and why.
 */
class OptionalIntegrationsTest {
    /** Hides the packages of Micrometer, OpenTelemetry and Baton's modules over them, as if they were not on the path. */
    static final class Hiding extends ClassLoader {
        private final List<String> hidden;

        Hiding(ClassLoader parent) {
            this(parent, List.of("io.micrometer.", "io.opentelemetry.", "dev.baton.micrometer.", "dev.baton.tracing."));
        }

        Hiding(ClassLoader parent, List<String> hidden) {
            super(parent);
            this.hidden = hidden;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            for (String prefix : hidden) {
                if (name.startsWith(prefix)) {
                    throw new ClassNotFoundException(name + " is hidden by this test");
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    @Test
    void withoutMicrometerAndOpenTelemetryTheStarterStillWorksAndRegistersNeither() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        try (Orders orders = new Orders(db);
                ConfigurableApplicationContext ctx = TestApp.start(
                        db, orders, new Hiding(getClass().getClassLoader()), List.of(), "test.worker=true")) {
            ctx.getBean(Baton.class);
            assertThrows(NoSuchBeanDefinitionException.class, () -> ctx.getBean(BatonMetrics.class));
            assertThrows(NoSuchBeanDefinitionException.class, () -> ctx.getBean(BatonTracing.class));
            assertEquals(0, ctx.getBeanNamesForType(io.micrometer.core.instrument.MeterRegistry.class).length);
            orders.insert(1, Pay.PENDING);
            assertInstanceOf(
                    TransitionResult.Applied.class,
                    ctx.getBean(TestApp.PaymentService.class).pay(1, "gw-1", false));
        }
    }

    @Test
    void withTheConsoleEnabledButBatonConsoleMissingTheStarterSaysSo() throws Exception {
        TestDatabase db = TestServer.POSTGRES_LOCAL.get();
        String warning = "baton.console.enabled=true, but there is no console: dev.baton:baton-console is not on the"
                + " class path";
        // logback's console appender writes to System.out as it is at each line
        PrintStream out = System.out;
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        System.setOut(new PrintStream(new TeeStream(out, seen), true, StandardCharsets.UTF_8));
        try {
            try (Orders orders = new Orders(db);
                    ConfigurableApplicationContext ctx = TestApp.start(
                            db,
                            orders,
                            new Hiding(getClass().getClassLoader(), List.of("dev.baton.console.")),
                            List.of(),
                            "baton.console.enabled=true")) {
                ctx.getBean(Baton.class);
            }
            assertTrue(seen.toString(StandardCharsets.UTF_8).contains(warning), "no warning in: " + seen);
            seen.reset();
            // with the module there, no such line (this application is not a servlet one: no console either)
            try (Orders orders = new Orders(db);
                    ConfigurableApplicationContext ctx =
                            TestApp.start(db, orders, List.of(), "baton.console.enabled=true")) {
                ctx.getBean(Baton.class);
            }
            assertFalse(seen.toString(StandardCharsets.UTF_8).contains(warning), seen.toString());
        } finally {
            System.setOut(out);
        }
    }

    /** Writes to both streams. */
    static final class TeeStream extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        TeeStream(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
