package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.OwnTables;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The own tables that {@code baton.own-tables.create=true} made at start-up (those that existed are left as they
 * are). Immutable.
 *
 * @param created the tables this start created
 */
public record OwnTablesCreated(List<String> created) {
    private static final Logger LOG = LoggerFactory.getLogger(OwnTablesCreated.class);

    /** Copies the list. */
    public OwnTablesCreated {
        created = List.copyOf(created);
    }

    static OwnTablesCreated create(Baton baton, BatonProperties.OwnTables tables) {
        OwnTables own = baton.ownTables();
        List<String> created = new ArrayList<>();
        for (String t : tables.outbox()) {
            if (own.createOutboxTable(t)) {
                created.add(t);
            }
        }
        for (String t : tables.inbox()) {
            if (own.createInboxTable(t)) {
                created.add(t);
            }
        }
        for (String t : tables.idempotencyKeys()) {
            if (own.createIdempotencyKeysTable(t)) {
                created.add(t);
            }
        }
        for (String t : tables.rateLimits()) {
            if (own.createRateLimitsTable(t)) {
                created.add(t);
            }
        }
        if (!created.isEmpty()) {
            LOG.info("Baton created its own tables {}", created);
        }
        return new OwnTablesCreated(created);
    }
}
