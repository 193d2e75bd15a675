package dev.baton.examples.spring;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.util.Map;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded PostgreSQL (the test servers', on a free port of localhost, stopped when the JVM exits) when the
 * application has no {@code spring.datasource.url}, so that the example runs with one command on a fresh clone.
 */
final class EmbeddedPostgres implements ApplicationContextInitializer<ConfigurableApplicationContext> {
    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment env = context.getEnvironment();
        if (env.containsProperty("spring.datasource.url")) {
            return;
        }
        TestDatabase pg;
        try {
            pg = TestDatabases.postgresEmbedded();
        } catch (AssertionError e) { // how the test servers report a server that did not start
            throw new IllegalStateException(e.getMessage(), e);
        }
        env.getPropertySources()
                .addLast(new MapPropertySource(
                        "embeddedPostgres",
                        Map.of(
                                "spring.datasource.url", pg.jdbcUrl(),
                                "spring.datasource.username", pg.user(),
                                "spring.datasource.password", pg.password() == null ? "" : pg.password())));
    }
}
