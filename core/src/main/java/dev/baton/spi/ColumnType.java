package dev.baton.spi;

/** Logical column types used in DDL hints ({@link SqlVocabulary#columnType}). */
public enum ColumnType {
    /** 64-bit integer. */
    BIGINT,
    /** 32-bit integer. */
    INT,
    /** Short text, up to 64 characters. */
    SHORT_TEXT,
    /** Text up to 4000 characters. */
    TEXT,
    /** Timestamp with microseconds, in the database clock's zone. */
    TIMESTAMP
}
