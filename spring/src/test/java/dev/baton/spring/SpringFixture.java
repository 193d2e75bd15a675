package dev.baton.spring;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.Baton;
import dev.baton.BatonListener;
import dev.baton.TransitionResult;
import dev.baton.testservers.DatabaseKind;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One test's Spring application on one server: a HikariCP pool (behind a {@link CountingDataSource}), a
 * {@link DataSourceTransactionManager} over it, {@code Baton.using}-style wiring in a {@code @Bean} method, and the
 * {@link Payments} service with its tables. Every pooled connection gives up on a row lock after 2 s, so that a test
 * of a wait on the caller's own lock fails instead of hanging. Closing drops the tables and closes the context.
 */
final class SpringFixture implements AutoCloseable {
    /** The table names of one test. */
    record Names(String orders, String ledger, String outbox, String keys, String inbox, String jobs) {}

    /** Listener calls, as the tests see them. */
    static final class Recorder implements BatonListener {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void onTransition(String table, TransitionResult<?> result) {
            calls.add("transition " + result.getClass().getSimpleName());
        }

        @Override
        public void onBulkTransition(String table, Enum<?> target, long rows, int batches) {
            calls.add("bulk " + rows);
        }

        @Override
        public void onClaim(String queue, int count) {
            calls.add("claim " + count);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Application {
        @Bean(destroyMethod = "close")
        HikariDataSource pool(TestDatabase db) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.jdbcUrl());
            config.setUsername(db.user());
            config.setPassword(db.password());
            config.setMaximumPoolSize(4);
            config.setMinimumIdle(1);
            config.setConnectionInitSql(
                    db.kind() == DatabaseKind.POSTGRES
                            ? "SET lock_timeout = '2s'"
                            : "SET SESSION innodb_lock_wait_timeout = 2");
            return new HikariDataSource(config);
        }

        @Bean
        @Primary
        CountingDataSource dataSource(HikariDataSource pool) {
            return new CountingDataSource(pool);
        }

        @Bean
        TransactionTemplate transactionTemplate(PlatformTransactionManager tm) {
            return new TransactionTemplate(tm);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        Recorder recorder() {
            return new Recorder();
        }

        // the natural wiring: nothing here says "join Spring's transactions"; baton-spring on the class path does it
        @Bean
        Baton baton(DataSource dataSource, Recorder recorder) {
            return Baton.builder(dataSource).listener(recorder).build();
        }

        @Bean
        Payments payments(Baton baton, JdbcTemplate jdbc, Names names) {
            return new Payments(baton, jdbc, names);
        }
    }

    /** The JDBC transaction manager most plain Spring applications use. */
    @Configuration(proxyBeanMethods = false)
    static class JdbcTransactions {
        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }
    }

    /**
     * JPA's transaction manager over Hibernate, as a Spring Boot application with Spring Data JPA has it: it exposes
     * its JDBC connection to the data source without marking it synchronized with the transaction, as
     * {@code DataSourceTransactionManager} does.
     */
    @Configuration(proxyBeanMethods = false)
    static class JpaTransactions {
        @Bean
        LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
            LocalContainerEntityManagerFactoryBean emf = new LocalContainerEntityManagerFactoryBean();
            emf.setDataSource(dataSource);
            emf.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
            emf.setPackagesToScan(dev.baton.spring.jpa.JpaOrder.class.getPackageName());
            emf.setJpaPropertyMap(java.util.Map.of("hibernate.hbm2ddl.auto", "none"));
            return emf;
        }

        @Bean
        PlatformTransactionManager transactionManager(EntityManagerFactory emf, DataSource dataSource) {
            JpaTransactionManager tm = new JpaTransactionManager(emf);
            tm.setDataSource(dataSource);
            return tm;
        }
    }

    final TestDatabase db;
    final Names names;
    final AnnotationConfigApplicationContext context;
    final CountingDataSource dataSource;
    final Baton baton;
    final Payments payments;
    final TransactionTemplate tx;
    final JdbcTemplate jdbc;
    final Recorder recorder;

    SpringFixture(TestDatabase db) {
        this(db, false);
    }

    /** With {@code jpa}, the transactions are {@link JpaTransactionManager}'s over Hibernate. */
    SpringFixture(TestDatabase db, boolean jpa) {
        this.db = db;
        String suffix = TestDatabases.uniqueName("s").substring(1);
        this.names = new Names(
                "orders" + suffix,
                "ledger" + suffix,
                "outbox" + suffix,
                "keys" + suffix,
                "inbox" + suffix,
                "jobs" + suffix);
        this.context = new AnnotationConfigApplicationContext();
        context.registerBean(TestDatabase.class, () -> db);
        context.registerBean(Names.class, () -> names);
        context.register(Application.class, jpa ? JpaTransactions.class : JdbcTransactions.class);
        context.refresh();
        this.dataSource = context.getBean(CountingDataSource.class);
        this.baton = context.getBean(Baton.class);
        this.payments = context.getBean(Payments.class);
        this.tx = context.getBean(TransactionTemplate.class);
        this.jdbc = context.getBean(JdbcTemplate.class);
        this.recorder = context.getBean(Recorder.class);
        payments.orders().createTableSql().forEach(jdbc::execute);
        jdbc.execute("CREATE TABLE " + names.ledger() + " (order_id BIGINT NOT NULL)");
        baton.ownTables().createOutboxTable(names.outbox());
        baton.ownTables().createIdempotencyKeysTable(names.keys());
        baton.ownTables().createInboxTable(names.inbox());
    }

    /** Inserts orders in PENDING. */
    void orders(long... ids) {
        for (long id : ids) {
            jdbc.update("INSERT INTO " + names.orders() + " (id, status) VALUES (?, 'PENDING')", id);
        }
    }

    /** The committed state of an order, read on a connection of its own. */
    String status(long id) {
        return jdbc.queryForObject("SELECT status FROM " + names.orders() + " WHERE id = ?", String.class, id);
    }

    /** Committed rows of a table. */
    int count(String table) {
        Integer n = jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
        return n == null ? 0 : n;
    }

    @Override
    public void close() {
        try {
            for (String t : List.of(
                    names.orders(), names.ledger(), names.outbox(), names.keys(), names.inbox(), names.jobs())) {
                db.dropTableIfExists(t);
            }
        } finally {
            context.close();
        }
    }
}
