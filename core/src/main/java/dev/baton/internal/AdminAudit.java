package dev.baton.internal;

import dev.baton.AdminAction;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells the listeners of an admin action, stamped by the database clock (read only when someone listens). */
public final class AdminAudit {
    private static final Logger log = LoggerFactory.getLogger(AdminAudit.class);

    private AdminAudit() {}

    /** Fires {@code onAdminAction} after the commit (see {@link Engine#fire}); the action stands whatever happens here. */
    public static void report(
            Engine engine, AdminAction.Kind kind, String queue, Object id, String principal, Object result, long rows) {
        if (!engine.events().hasListeners()) {
            return;
        }
        Instant at = null;
        try {
            at = DatabaseClock.now(engine);
        } catch (RuntimeException e) {
            log.warn("queue '{}': could not read the database clock for the audit of {} {}", queue, kind, id, e);
        }
        AdminAction action = new AdminAction(kind, queue, id, principal, result, rows, at);
        engine.events().fire(l -> l.onAdminAction(action));
    }
}
