package dev.baton.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.baton.Baton;
import dev.baton.ClaimQueueBuilder;
import dev.baton.Condition;
import dev.baton.StateTable;
import dev.baton.testkit.compat.Payment;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.ConnectionSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim's exact statements. The MariaDB suites run them; this pins how many there are: the locking read returns
 * what the claim hands to the worker (attempts as they will be after the update), so no read follows the update,
 * unless a selected column is one the claim itself changes.
 */
class MySqlClaimSqlTest {
    private final Baton baton = Baton.builder((ConnectionSource) MySqlClaimSqlTest::noConnection)
            .dialect(new MySqlDialect())
            .build();
    private final StateTable<Payment> orders = baton.table("orders").state("payment_status", Payment.MACHINE);

    private static Connection noConnection() throws SQLException {
        throw new SQLException("rendering only");
    }

    private ClaimQueueBuilder<Sync> queue() {
        return baton.<Sync>queue("order-sync")
                .table("orders")
                .claim("sync_status", Sync.MACHINE, Sync.PENDING, Sync.PROCESSING)
                .eligibleWhen(orders.is(Payment.PAID), Condition.isNull("third_party_guid"))
                .deadState(Sync.FAILED)
                .lease(Duration.ofMinutes(2));
    }

    private static final String GUARD = "`sync_status` = 0 AND `payment_status` = 1 AND `third_party_guid` IS NULL"
            + " AND (`next_attempt_at` IS NULL OR `next_attempt_at` <= UTC_TIMESTAMP(6)) AND `attempts` < ?";
    private static final String UPDATE = "UPDATE `orders` SET `sync_status` = ?, `lease_until` ="
            + " TIMESTAMPADD(MICROSECOND, 120000000, UTC_TIMESTAMP(6)), `claim_token` = ?, `attempts` = `attempts`"
            + " + 1 WHERE `id` IN (…) AND " + GUARD;

    @Test
    void claimIsALockingReadOfWhatItReturnsThenOneGuardedUpdate() {
        List<String> sql = queue().select("payment_transaction_id").build().claimSql(50);
        assertEquals(
                List.of(
                        "SELECT `id`, `attempts` + 1, `payment_transaction_id` FROM `orders` WHERE " + GUARD
                                + " ORDER BY `sync_status`, `payment_status`, `id` LIMIT 50 FOR UPDATE SKIP LOCKED",
                        UPDATE),
                sql);
    }

    @Test
    void selectingAColumnTheClaimChangesReadsTheRowsAfterTheUpdate() {
        List<String> sql = queue().select("lease_until").build().claimSql(50);
        assertEquals(
                List.of(
                        "SELECT `id` FROM `orders` WHERE " + GUARD
                                + " ORDER BY `sync_status`, `payment_status`, `id` LIMIT 50 FOR UPDATE SKIP LOCKED",
                        UPDATE,
                        "SELECT `id`, `attempts`, `lease_until` FROM `orders` WHERE `id` IN (…)"),
                sql);
    }
}
