package dev.baton.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.baton.StateTable;
import dev.baton.TransitionResult;
import dev.baton.spring.Payments.Pay;
import dev.baton.spring.jpa.JpaOrder;
import dev.baton.testservers.TestServer;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.orm.jpa.SharedEntityManagerCreator;

/**
 * What the Spring page says about JPA: Baton's statements go to the transaction's connection directly, so a row the
 * same transaction wrote through JPA is there for Baton only once the persistence context is flushed, and an entity
 * loaded before Baton's transition keeps its old state until it is refreshed.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED", "MARIADB_LOCAL", "MARIADB_EMBEDDED"})
class JpaFlushTest {
    @Parameter
    TestServer server;

    private SpringFixture f;
    private StateTable<Pay> orders;
    private EntityManager em;

    @BeforeEach
    void setUp() {
        f = new SpringFixture(server.get(), true);
        f.db.dropTableIfExists(JpaOrder.TABLE);
        orders = f.baton.table(JpaOrder.TABLE).id("id").state("status", Payments.MACHINE);
        orders.createTableSql().forEach(f.jdbc::execute);
        em = SharedEntityManagerCreator.createSharedEntityManager(f.context.getBean(EntityManagerFactory.class));
    }

    @AfterEach
    void tearDown() {
        if (f != null) {
            try {
                f.db.dropTableIfExists(JpaOrder.TABLE);
            } finally {
                f.close();
            }
        }
    }

    @Test
    void aRowPersistedThroughJpaIsSeenByBatonOnceFlushed() {
        TransitionResult<Pay> unflushed = f.tx.execute(s -> {
            em.persist(new JpaOrder(1, "PENDING"));
            return orders.transition(1, Pay.PENDING, Pay.PAID).apply();
        });
        assertInstanceOf(
                TransitionResult.NotFound.class, unflushed, "the INSERT still waits in the persistence context");

        TransitionResult<Pay> flushed = f.tx.execute(s -> {
            em.persist(new JpaOrder(2, "PENDING"));
            em.flush();
            return orders.transition(2, Pay.PENDING, Pay.PAID).apply();
        });
        assertInstanceOf(TransitionResult.Applied.class, flushed);
        assertEquals(
                "PAID", f.jdbc.queryForObject("SELECT status FROM " + JpaOrder.TABLE + " WHERE id = 2", String.class));
    }

    @Test
    void anEntityLoadedBeforeTheTransitionIsStaleUntilRefreshed() {
        f.jdbc.update("INSERT INTO " + JpaOrder.TABLE + " (id, status) VALUES (3, 'PENDING')");
        String[] seen = f.tx.execute(s -> {
            JpaOrder loaded = em.find(JpaOrder.class, 3L);
            orders.transition(3, Pay.PENDING, Pay.PAID).apply();
            String before = em.find(JpaOrder.class, 3L).status();
            em.refresh(loaded);
            return new String[] {before, loaded.status()};
        });
        assertEquals("PENDING", seen[0], "the persistence context answers from its first-level cache");
        assertEquals("PAID", seen[1], "after refresh");
    }
}
