package ringbench.driver

/**
 * The result record the driver prints for an iteration measured by [meter] (Meter.result is the
 * family library's, package-private): the tests read its fields as ringbench reads them.
 */
object Records {
    private val FIELD = Regex("\"([a-z_]+)\":(-?\\d+)")

    /** The numeric fields of the record, by key. */
    fun of(meter: Meter): Map<String, Long> {
        val r = Out.Rec("result")
        meter.result(r)
        return FIELD.findAll(r.toString()).associate { it.groupValues[1] to it.groupValues[2].toLong() }
    }
}
