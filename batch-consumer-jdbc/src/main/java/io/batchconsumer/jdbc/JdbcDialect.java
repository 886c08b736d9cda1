package io.batchconsumer.jdbc;

import java.util.Locale;

/**
 * The databases the transport knows, told apart by {@code DatabaseMetaData.getDatabaseProductName()}.
 * Statements at run time are plain SQL that every one of them accepts; only the schema differs.
 */
enum JdbcDialect {

	/** SQLite 3 (a file, in WAL mode), the embedded default. */
	SQLITE("schema-sqlite.sql"),

	/** H2 2.x. */
	H2("schema-h2.sql"),

	/** PostgreSQL 10 or later. */
	POSTGRESQL("schema-postgresql.sql"),

	/** MySQL 8 and MariaDB 10.3 or later. */
	MYSQL("schema-mysql.sql"),

	/** Any other database: usable when the tables exist, but the transport cannot create them. */
	OTHER(null);

	private final String schemaResource;

	JdbcDialect(String schemaResource) {
		this.schemaResource = schemaResource;
	}

	/**
	 * The dialect of a database product.
	 * @param productName the product name from the driver
	 * @return the dialect, {@link #OTHER} when unknown
	 */
	static JdbcDialect of(String productName) {
		String name = (productName != null) ? productName.toLowerCase(Locale.ROOT) : "";
		if (name.equals("h2")) {
			return H2;
		}
		if (name.equals("sqlite")) {
			return SQLITE;
		}
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		if (name.contains("mysql") || name.contains("mariadb")) {
			return MYSQL;
		}
		return OTHER;
	}

	/**
	 * Whether a database runs inside this process, which is when
	 * {@link SchemaInitialization#EMBEDDED} creates the tables.
	 * @param productName the product name from the driver
	 * @param url the JDBC URL from the driver
	 * @return whether it is embedded
	 */
	static boolean isEmbedded(String productName, String url) {
		String name = (productName != null) ? productName.toLowerCase(Locale.ROOT) : "";
		String jdbcUrl = (url != null) ? url.toLowerCase(Locale.ROOT) : "";
		if (name.equals("h2")) {
			return !jdbcUrl.startsWith("jdbc:h2:tcp:") && !jdbcUrl.startsWith("jdbc:h2:ssl:");
		}
		return name.equals("sqlite") || name.startsWith("hsql") || name.equals("apache derby");
	}

	/**
	 * The class-path resource holding this dialect's schema.
	 * @return the resource name relative to this package, or {@code null} for {@link #OTHER}
	 */
	String schemaResource() {
		return this.schemaResource;
	}

}
