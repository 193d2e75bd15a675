package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Outbox;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Baton over the application's {@link DataSource}.
 *
 * <ul>
 *   <li>a {@link Baton} bean, unless the application defines one, with every {@link BatonListener} bean and
 *       {@link BatonCustomizer} bean applied; created after Flyway, Liquibase and SQL-script initialization. With
 *       {@code baton-spring} on the class path (a dependency of this starter) its operations join the caller's
 *       Spring transaction;
 *   <li>Baton's own tables listed under {@code baton.own-tables.*}, when {@code baton.own-tables.create=true};
 *   <li>{@link BatonWorkers}: a worker for each {@link QueueWorker} bean, started and stopped with the context;
 *   <li>{@link BatonQueues}: the queues that the Actuator health indicator and endpoint report, and that
 *       {@code BatonMetricsAutoConfiguration} gives gauges.
 * </ul>
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration", // Boot 4
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration" // Boot 3
        })
@ConditionalOnClass(Baton.class)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonAutoConfiguration {
    /** Used by Spring. */
    public BatonAutoConfiguration() {}

    /**
     * The Baton bean over the application's only (or primary) {@code DataSource}.
     *
     * @param dataSource the application's pool
     * @param listeners listener beans, in order
     * @param customizers customizer beans, in order
     * @return the Baton
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    @DependsOnDatabaseInitialization
    public Baton baton(
            DataSource dataSource,
            ObjectProvider<BatonListener> listeners,
            ObjectProvider<BatonCustomizer> customizers) {
        Baton.Builder builder = Baton.builder(dataSource);
        listeners.orderedStream().forEach(builder::listener);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /**
     * Creates the own tables listed under {@code baton.own-tables} at start-up.
     *
     * @param baton the Baton
     * @param properties the table names
     * @return a marker bean that has done its work when created
     */
    @Bean
    @ConditionalOnBean(Baton.class)
    @ConditionalOnProperty(name = "baton.own-tables.create", havingValue = "true")
    @DependsOnDatabaseInitialization
    public OwnTablesCreated batonOwnTables(Baton baton, BatonProperties properties) {
        return OwnTablesCreated.create(baton, properties.ownTables());
    }

    /**
     * The workers of the context.
     *
     * @param baton the Baton
     * @param properties settings per queue
     * @param workers the {@link QueueWorker} beans
     * @return the lifecycle bean
     */
    @Bean
    @ConditionalOnBean(Baton.class)
    @ConditionalOnMissingBean
    public BatonWorkers batonWorkers(Baton baton, BatonProperties properties, ObjectProvider<QueueWorker<?>> workers) {
        return new BatonWorkers(baton, properties, workers.orderedStream().toList());
    }

    /**
     * The queues of the context, for the health indicator and the endpoint.
     *
     * @param workers the workers
     * @param queues the {@link ClaimQueue} beans, looked up when read
     * @param outboxes the {@link Outbox} beans, whose queues are reported too, looked up when read
     * @return the queues
     */
    @Bean
    @ConditionalOnBean(BatonWorkers.class)
    @ConditionalOnMissingBean
    public BatonQueues batonQueues(
            BatonWorkers workers, ObjectProvider<ClaimQueue<?>> queues, ObjectProvider<Outbox> outboxes) {
        return new BatonQueues(workers, () -> {
            List<ClaimQueue<?>> all = new ArrayList<>(queues.orderedStream().toList());
            outboxes.orderedStream().forEach(o -> all.add(o.queue()));
            return all;
        });
    }
}
