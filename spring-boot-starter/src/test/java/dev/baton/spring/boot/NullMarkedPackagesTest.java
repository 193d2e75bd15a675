package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.lang.reflect.AnnotatedType;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The public packages of the Spring, Spring Boot, Micrometer and tracing modules are {@code @NullMarked} (as core's
 * are), and the places the starter's settings and reports may be null say so.
 */
class NullMarkedPackagesTest {
    @Test
    void everyPublicPackageIsNullMarked() throws Exception {
        for (String pkg : List.of(
                "dev.baton.spring",
                "dev.baton.spring.boot",
                "dev.baton.spring.boot.actuate",
                "dev.baton.spring.boot.health",
                "dev.baton.spring.boot.metrics",
                "dev.baton.spring.boot.tracing",
                "dev.baton.micrometer",
                "dev.baton.tracing")) {
            Package p = Class.forName(pkg + ".package-info").getPackage();
            assertNotNull(p.getAnnotation(NullMarked.class), pkg + " is @NullMarked");
        }
    }

    @Test
    void springFindsNoTransactionAsNull() throws Exception {
        assertNotNull(dev.baton.spring.SpringTransactions.class
                .getMethod("current", javax.sql.DataSource.class)
                .getAnnotatedReturnType()
                .getAnnotation(Nullable.class));
    }

    @Test
    void unsetSettingsAndAMissingAgeAreNullable() throws Exception {
        List<String> nullable = new ArrayList<>();
        for (Class<?> type : List.of(
                BatonProperties.class,
                BatonProperties.OwnTables.class,
                BatonProperties.Workers.class,
                BatonProperties.Health.class,
                BatonProperties.Metrics.class,
                BatonProperties.Queue.class,
                QueueReport.class)) {
            for (var c : type.getRecordComponents()) {
                AnnotatedType t = c.getAccessor().getAnnotatedReturnType();
                if (t.isAnnotationPresent(Nullable.class)) {
                    nullable.add(type.getSimpleName() + "." + c.getName());
                }
            }
        }
        assertEquals(
                List.of(
                        "Health.maxBacklogAge",
                        "Health.maxUnknown",
                        "Queue.batchSize",
                        "Queue.concurrency",
                        "Queue.pollInterval",
                        "Queue.maxIdleInterval",
                        "Queue.heartbeat",
                        "Queue.shutdownTimeout",
                        "Queue.sweepInterval",
                        "Queue.lease",
                        "Queue.maxBacklogAge",
                        "QueueReport.oldestEligibleAge"),
                nullable);
    }
}
