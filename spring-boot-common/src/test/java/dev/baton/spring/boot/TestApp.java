package dev.baton.spring.boot;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.ClaimQueue;
import dev.baton.Condition;
import dev.baton.Message;
import dev.baton.Outbox;
import dev.baton.OutboxMessage;
import dev.baton.Outcome;
import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.spring.boot.Orders.Pay;
import dev.baton.spring.boot.Orders.Sync;
import dev.baton.testservers.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.annotation.Transactional;

/** The application of the starter's tests: an orders table, an outbox, a sync queue and (optionally) its worker. */
@SpringBootConfiguration
@EnableAutoConfiguration
class TestApp {
    /** Starts the application on {@code db} with the test tables of {@code orders} and more properties. */
    static ConfigurableApplicationContext start(
            TestDatabase db, Orders orders, List<Class<?>> extra, String... properties) {
        return start(db, orders, null, extra, properties);
    }

    /** As above, the context's classes looked up through {@code loader} when it is not null. */
    static ConfigurableApplicationContext start(
            TestDatabase db, Orders orders, ClassLoader loader, List<Class<?>> extra, String... properties) {
        List<String> props = new ArrayList<>(List.of(
                "spring.datasource.url=" + db.jdbcUrl(),
                "spring.datasource.username=" + db.user(),
                "spring.datasource.password=" + (db.password() == null ? "" : db.password()),
                "spring.datasource.hikari.maximum-pool-size=6",
                "spring.main.banner-mode=off",
                "baton.own-tables.create=true",
                "baton.own-tables.outbox=" + orders.outbox,
                "test.orders=" + orders.table,
                "test.outbox=" + orders.outbox));
        props.addAll(List.of(properties));
        List<Class<?>> sources = new ArrayList<>(List.of(TestApp.class));
        sources.addAll(extra);
        SpringApplicationBuilder app = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new));
        if (loader != null) {
            app.resourceLoader(new org.springframework.core.io.DefaultResourceLoader(loader));
        }
        return app.web(WebApplicationType.NONE)
                .properties(props.toArray(String[]::new))
                .run();
    }

    @Bean
    StateTable<Pay> orders(Baton baton, @Value("${test.orders}") String table) {
        return baton.table(table).id("id").state("payment_status", Pay.MACHINE);
    }

    @Bean
    Outbox outbox(Baton baton, @Value("${test.outbox}") String table) {
        return baton.outbox(table);
    }

    @Bean
    ClaimQueue<Sync> syncQueue(Baton baton, StateTable<Pay> orders, BatonProperties properties) {
        return baton.<Sync>queue("order-sync")
                .table(orders.table())
                .id("id")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(orders.is(Pay.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .lease(properties.queue("order-sync").leaseOr(Duration.ofSeconds(30)))
                .ageColumn("paid_at")
                .build();
    }

    @Bean
    @ConditionalOnProperty("test.worker")
    QueueWorker<Sync> syncWorker(
            ClaimQueue<Sync> syncQueue, @Value("${test.outcome-column:third_party_guid}") String outcomeColumn) {
        return QueueWorker.of(
                        syncQueue, row -> Outcome.<Sync>complete(Sync.COMPLETED).set(outcomeColumn, "guid-" + row.id()))
                .configure(worker -> worker.name("test-sync"));
    }

    @Bean
    @ConditionalOnProperty("test.dispatcher")
    QueueWorker<Outbox.Status> outboxDispatcher(Outbox outbox, Delivered delivered) {
        return QueueWorker.dispatcher(outbox, delivered::add);
    }

    @Bean
    Delivered delivered() {
        return new Delivered();
    }

    /** The messages the outbox dispatcher's sink accepted. */
    static final class Delivered {
        final List<OutboxMessage> messages = new java.util.concurrent.CopyOnWriteArrayList<>();

        void add(OutboxMessage message) {
            messages.add(message);
        }
    }

    /** A listener bean: the starter adds it to the Baton bean. */
    @Bean
    Transitions transitions() {
        return new Transitions();
    }

    /** Records the transitions Baton reports, as a metrics listener would count them. */
    static final class Transitions implements BatonListener {
        final List<TransitionResult<?>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onTransition(String table, TransitionResult<?> result) {
            seen.add(result);
        }
    }

    @Bean
    PaymentService paymentService(StateTable<Pay> orders, Outbox outbox, DataSource dataSource) {
        return new PaymentService(orders, outbox, dataSource);
    }

    /** The gateway callback in a {@code @Transactional} method: a transition and an outbox message. */
    static class PaymentService {
        private final StateTable<Pay> orders;
        private final Outbox outbox;
        private final DataSource dataSource;
        /** Connections the pool had lent out inside the last transaction, after Baton's writes. */
        volatile int activeInside = -1;

        volatile boolean txActive;

        PaymentService(StateTable<Pay> orders, Outbox outbox, DataSource dataSource) {
            this.orders = orders;
            this.outbox = outbox;
            this.dataSource = dataSource;
        }

        /** Connections the pool had lent out inside the last transaction, after Baton's writes (through the proxy). */
        public int activeInside() {
            return activeInside;
        }

        /** Whether the last call ran in a Spring transaction. */
        public boolean txActive() {
            return txActive;
        }

        /** The transition and its message in one call of the outbox, inside the caller's transaction. */
        @Transactional
        public TransitionResult<Pay> payAndAnnounce(long orderId, String gatewayTx) {
            return outbox.transitionAndEnqueue(
                    orders.transition(orderId, Pay.PENDING, Pay.PAID)
                            .set("payment_transaction_id", gatewayTx)
                            .setNow("paid_at"),
                    Message.of("payment.paid", Long.toString(orderId)));
        }

        @Transactional
        public TransitionResult<Pay> pay(long orderId, String gatewayTx, boolean failAfterwards) throws SQLException {
            TransitionResult<Pay> r = orders.transition(orderId, Pay.PENDING, Pay.PAID)
                    .set("payment_transaction_id", gatewayTx)
                    .setNow("paid_at")
                    .apply();
            if (r.applied()) {
                outbox.enqueue(Message.of("payment.paid", Long.toString(orderId)));
            }
            txActive =
                    org.springframework.transaction.support.TransactionSynchronizationManager
                            .isActualTransactionActive();
            activeInside = dataSource
                    .unwrap(HikariDataSource.class)
                    .getHikariPoolMXBean()
                    .getActiveConnections();
            if (failAfterwards) {
                throw new IllegalStateException("the caller's transaction fails after Baton's writes");
            }
            return r;
        }
    }

    /** The application's pool behind a switch that makes every new connection fail: a database that stops answering. */
    @Configuration(proxyBeanMethods = false)
    static class OutageConfig {
        // read from the environment: DataSourceProperties moved to another package in Spring Boot 4
        @Bean
        Outage dataSource(Environment env) {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl(env.getRequiredProperty("spring.datasource.url"));
            pool.setUsername(env.getProperty("spring.datasource.username"));
            pool.setPassword(env.getProperty("spring.datasource.password"));
            return new Outage(pool);
        }
    }

    /**
     * Delegates to the pool; while {@link #down} is true, asking for a connection fails as a refused connect does;
     * while {@link #pollersDown} is true, only workers' poller threads ({@code <name>-poller...}) are refused, so the
     * workers' polls fail while the health indicator's queries (on the caller's thread) still get answers.
     */
    static final class Outage extends DelegatingDataSource implements AutoCloseable {
        volatile boolean down;
        volatile boolean pollersDown;

        Outage(HikariDataSource pool) {
            super(pool);
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (down || pollersDown && Thread.currentThread().getName().contains("-poller")) {
                throw new SQLTransientConnectionException("injected outage: the database does not answer", "08001");
            }
            return super.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public void close() {
            ((HikariDataSource) obtainTargetDataSource()).close();
        }
    }
}
