/* placeholder: replaced by the MPICH-ABI header */
