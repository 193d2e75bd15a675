package dev.baton.examples.spring;

import dev.baton.testservers.EmbeddedPostgresServer;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.util.Map;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts an embedded PostgreSQL (the test servers', on a free port of localhost) when the application has no
 * {@code spring.datasource.url}, so that the example runs with one command on a fresh clone. The context stops it,
 * last: on Ctrl-C the workers stop, the pool closes, then the server goes.
 */
final class EmbeddedPostgres implements ApplicationContextInitializer<ConfigurableApplicationContext> {
    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment env = context.getEnvironment();
        if (env.containsProperty("spring.datasource.url")) {
            return;
        }
        if (!(context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry)) {
            throw new IllegalStateException("cannot register the embedded PostgreSQL's shutdown with " + context);
        }
        EmbeddedPostgresServer server = TestDatabases.startPostgresEmbedded();
        // Registered before any bean, so destroyed after all of them (the registry destroys in reverse order),
        // from the context's own close: a JVM shutdown hook of the server's own would stop it while the workers
        // still poll, and fill the console with their lost connections.
        registry.registerDisposableBean("embeddedPostgresServer", server::close);
        TestDatabase pg = server.database();
        env.getPropertySources()
                .addLast(new MapPropertySource(
                        "embeddedPostgres",
                        Map.of(
                                "spring.datasource.url", pg.jdbcUrl(),
                                "spring.datasource.username", pg.user(),
                                "spring.datasource.password", pg.password() == null ? "" : pg.password())));
    }
}
