-- Baton inbox (dev.baton.Inbox), MySQL 8.0.1+ and MariaDB 10.6+: upgrade of V2.
-- TIMESTAMP(6) ends on 2038-01-19 and is read and written in the session's time zone; Baton writes and compares this
-- column with UTC_TIMESTAMP(6), so it becomes DATETIME(6) holding UTC. The conversion runs in a UTC session, so the
-- stored instants keep their meaning, and the session's zone is restored afterwards. No default: Baton writes it.
-- baton.ownTables() runs this file after V2 when it creates the table. Keep every name quoted.

SET @baton_session_zone = @@session.time_zone;

SET time_zone = '+00:00';

ALTER TABLE `baton_inbox`
    MODIFY `received_at` DATETIME(6) NOT NULL;

SET time_zone = @baton_session_zone;
