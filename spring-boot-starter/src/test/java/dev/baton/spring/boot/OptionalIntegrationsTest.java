package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.baton.Baton;
import dev.baton.TransitionResult;
import dev.baton.micrometer.BatonMetrics;
import dev.baton.spring.boot.Orders.Pay;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import dev.baton.tracing.BatonTracing;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Micrometer and OpenTelemetry are optional: with their classes (and Baton's modules for them) hidden from the
 * application, the starter still gives a working {@code Baton} bean, and neither the meters nor the tracing
 * interceptor is registered.
 */
class OptionalIntegrationsTest {
    /** Hides the packages of Micrometer, OpenTelemetry and Baton's modules over them, as if they were not on the path. */
    static final class Hiding extends ClassLoader {
        private static final List<String> HIDDEN =
                List.of("io.micrometer.", "io.opentelemetry.", "dev.baton.micrometer.", "dev.baton.tracing.");

        Hiding(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            for (String prefix : HIDDEN) {
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
}
