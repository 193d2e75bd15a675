-- Baton transactional outbox (dev.baton.Outbox), MySQL 8.0.1+ and MariaDB 10.6+: upgrade of V3.
-- TIMESTAMP(6) ends on 2038-01-19 and is read and written in the session's time zone; Baton writes and compares these
-- columns with UTC_TIMESTAMP(6), so they become DATETIME(6) holding UTC. The conversion runs in a UTC session, so the
-- stored instants keep their meaning, and the session's zone is restored afterwards. No default: Baton writes every
-- column itself.
-- baton.ownTables() runs this file after V3 when it creates the table. Keep every name quoted.

SET @baton_session_zone = @@session.time_zone;

SET time_zone = '+00:00';

ALTER TABLE `baton_outbox`
    MODIFY `lease_until` DATETIME(6) NULL,
    MODIFY `next_attempt_at` DATETIME(6) NULL,
    MODIFY `created_at` DATETIME(6) NOT NULL;

SET time_zone = @baton_session_zone;
