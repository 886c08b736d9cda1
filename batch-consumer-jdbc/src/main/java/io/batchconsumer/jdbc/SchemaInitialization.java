package io.batchconsumer.jdbc;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * When the JDBC transport creates its tables ({@code batch-consumer.jdbc.initialize-schema}).
 */
public enum SchemaInitialization {

	/** Only for embedded databases (H2, HSQLDB, Derby). The default. */
	EMBEDDED,

	/** Always; the statements are idempotent ({@code CREATE TABLE IF NOT EXISTS}). */
	ALWAYS,

	/** Never: the tables are created by the user (Flyway, Liquibase, a DBA). */
	NEVER;

	/**
	 * Parses {@code embedded}, {@code always} or {@code never}, in any case.
	 * @param value the text
	 * @return the mode
	 * @throws IllegalArgumentException naming the property and the allowed values
	 */
	public static SchemaInitialization parse(String value) {
		String allowed = Arrays.stream(values()).map((v) -> v.name().toLowerCase(Locale.ROOT))
			.collect(Collectors.joining(", "));
		try {
			return valueOf(value.trim().toUpperCase(Locale.ROOT));
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(
					"jdbc.initialize-schema must be one of " + allowed + " but was '" + value + "'");
		}
	}

}
