/**
 * The container options described once: each {@link io.batchconsumer.core.options.OptionDescriptor}
 * holds its key, type, default and bounds, and {@link io.batchconsumer.core.options.OptionCatalog}
 * lists those a listener can set. The Spring Boot starter's annotation, properties and IDE
 * metadata are held to this table by tests.
 */
package io.batchconsumer.core.options;
